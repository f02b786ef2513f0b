/**
 * Private: the fake Slack's socket mode. `apps.connections.open` (with the app-level token) hands
 * out a one-use WebSocket URL on this server; each connection is greeted with `hello`; envelopes
 * (`events_api`, `interactive`) carry an `envelope_id` and a `retry_attempt`. The fake records
 * each envelope's acknowledgement; one not acknowledged in time is noticed and redelivered with
 * the next `retry_attempt`, as Slack does. `disconnect` asks the client to reconnect.
 *
 * @module
 */
import { startWsServer, type WsConnection, type WsServer } from "./_ws_server.ts";

/**
 * One envelope the fake sent.
 *
 * @example
 * ```ts
 * import type { SocketEnvelope } from "@bub/core/testing";
 * const acked = (envelope: SocketEnvelope) => envelope.ack !== null;
 * ```
 */
export interface SocketEnvelope {
  /** Its `envelope_id`. */
  readonly envelopeId: string;
  /** `events_api`, `interactive`, … */
  readonly type: string;
  /** The envelope's `payload`. */
  readonly payload: Record<string, unknown>;
  /** 0 for a first delivery. */
  readonly retryAttempt: number;
  /** The acknowledgement's payload once acknowledged, else null. */
  ack: Record<string, unknown> | null;
}

/**
 * Options of {@link FakeSlackSocket.send}.
 *
 * @example
 * ```ts
 * import type { SocketSendOptions } from "@bub/core/testing";
 * const redelivery: SocketSendOptions = { retryAttempt: 1 };
 * ```
 */
export interface SocketSendOptions {
  /** `retry_attempt` (default 0), with `retry_reason: "timeout"` when above 0. */
  readonly retryAttempt?: number;
}

/** Most deliveries of one unacknowledged envelope (Slack retries up to three times). */
const MAX_ATTEMPTS = 4;

/**
 * The socket-mode side of the fake Slack (`FakeSlackServer.socket`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeSlackServer } from "@bub/core/testing";
 * await using slack = await FakeSlackServer.start();
 * assert.deepEqual(slack.socket.open("xapp-wrong"), { ok: false, error: "invalid_auth" });
 * assert.equal(slack.socket.accepted, 0);
 * ```
 */
export class FakeSlackSocket {
  /** How long an envelope may wait for its acknowledgement before it is redelivered (ms). */
  ackTimeoutMs = 3000;
  /** Every envelope sent, in order. */
  readonly envelopes: SocketEnvelope[] = [];
  /** The envelopes noticed unacknowledged after {@link ackTimeoutMs}. */
  readonly unacked: SocketEnvelope[] = [];
  readonly #appToken: string;
  readonly #tickets = new Set<string>();
  readonly #open = new Set<WsConnection>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #ws: WsServer | null = null;
  #accepted = 0;
  #envelope = 0;

  private constructor(appToken: string) {
    this.#appToken = appToken;
  }

  /** Starts the WebSocket endpoint on a free port. */
  static async start(appToken: string): Promise<FakeSlackSocket> {
    const socket = new FakeSlackSocket(appToken);
    socket.#ws = await startWsServer((connection) => socket.#accept(connection));
    return socket;
  }

  /** `apps.connections.open`'s answer to a call with `token`: a fresh URL, or `invalid_auth`. */
  open(token: string): Record<string, unknown> {
    if (token !== this.#appToken) return { ok: false, error: "invalid_auth" };
    const ticket = crypto.randomUUID();
    this.#tickets.add(ticket);
    return { ok: true, url: `ws://127.0.0.1:${this.#ws!.port}/link/?ticket=${ticket}` };
  }

  /** How many connections were accepted so far (a reconnect adds one). */
  get accepted(): number {
    return this.#accepted;
  }

  /** How many connections are open now. */
  get connected(): number {
    return this.#open.size;
  }

  /** Waits until `count` connections were accepted in all and one is open. */
  async waitAccepted(count: number, timeoutMs = 30_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (this.#accepted < count || this.#open.size === 0) {
      if (Date.now() > end) {
        throw new Error(`Timed out waiting for socket connection ${count} (${this.#accepted})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /**
   * Sends an envelope of `type` with `payload` over the newest open connection; returns it.
   * Not acknowledged within {@link ackTimeoutMs}, it is noticed and sent again.
   */
  send(
    type: string,
    payload: Record<string, unknown>,
    options: SocketSendOptions = {},
  ): SocketEnvelope {
    const connection = [...this.#open].at(-1);
    if (!connection) throw new Error("No socket-mode connection is open");
    const envelope: SocketEnvelope = {
      envelopeId: `env-${++this.#envelope}-${crypto.randomUUID().slice(0, 8)}`,
      type,
      payload,
      retryAttempt: options.retryAttempt ?? 0,
      ack: null,
    };
    this.envelopes.push(envelope);
    connection.send(JSON.stringify({
      envelope_id: envelope.envelopeId,
      type,
      payload,
      accepts_response_payload: type !== "events_api",
      ...(type === "events_api"
        ? {
          retry_attempt: envelope.retryAttempt,
          retry_reason: envelope.retryAttempt > 0 ? "timeout" : "",
        }
        : {}),
    }));
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (envelope.ack !== null) return;
      this.unacked.push(envelope);
      if (envelope.retryAttempt + 1 < MAX_ATTEMPTS && this.#open.size > 0) {
        this.send(type, payload, { retryAttempt: envelope.retryAttempt + 1 });
      }
    }, this.ackTimeoutMs);
    this.#timers.add(timer);
    return envelope;
  }

  /** Asks every open connection to reconnect (`{"type":"disconnect"}`), as Slack does. */
  disconnect(reason = "refresh_requested"): void {
    for (const connection of this.#open) {
      connection.send(JSON.stringify({
        type: "disconnect",
        reason,
        debug_info: { host: "fake-slack" },
      }));
    }
  }

  /** Drops every connection and stops listening. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const connection of this.#open) connection.destroy();
    await this.#ws?.close();
  }

  #accept(connection: WsConnection): void {
    const ticket = new URL(connection.path, "ws://127.0.0.1").searchParams.get("ticket") ?? "";
    if (!this.#tickets.delete(ticket)) return connection.close(1008);
    this.#accepted++;
    this.#open.add(connection);
    connection.onClose = () => this.#open.delete(connection);
    connection.onText = (text) => {
      let message: { envelope_id?: unknown; payload?: unknown };
      try {
        message = JSON.parse(text);
      } catch {
        return;
      }
      const envelope = this.envelopes.find((e) => e.envelopeId === message.envelope_id);
      if (envelope && envelope.ack === null) {
        envelope.ack = (message.payload ?? {}) as Record<string, unknown>;
      }
    };
    connection.send(JSON.stringify({
      type: "hello",
      num_connections: this.#open.size,
      debug_info: { host: "fake-slack", approximate_connection_time: 18060 },
      connection_info: { app_id: "A0001" },
    }));
  }
}
