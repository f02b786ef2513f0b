/**
 * Private: the fake Discord's gateway — a WebSocket server speaking Discord's gateway protocol
 * to a real client: HELLO, IDENTIFY (a wrong token is closed with 4004), READY and the guild's
 * GUILD_CREATE, heartbeats (ACK), RESUME refused (identify afresh), and dispatches to every
 * identified session.
 *
 * @module
 */
import { channelObject, guildObject, userObject } from "./_discord_payloads.ts";
import { startWsServer, type WsConnection, type WsServer } from "./_ws_server.ts";

/** Who the gateway serves: the bot and its one guild with one text channel. */
export interface GatewayIdentity {
  readonly botToken: string;
  readonly applicationId: string;
  readonly guildId: string;
  readonly channelId: string;
}

/** The fake gateway. */
export class FakeDiscordGateway {
  readonly #identity: GatewayIdentity;
  readonly #sessions = new Set<{ connection: WsConnection; seq: number }>();
  #ws: WsServer | null = null;
  #identified = 0;

  private constructor(identity: GatewayIdentity) {
    this.#identity = identity;
  }

  /** Starts the gateway on a free port. */
  static async start(identity: GatewayIdentity): Promise<FakeDiscordGateway> {
    const gateway = new FakeDiscordGateway(identity);
    gateway.#ws = await startWsServer((connection) => gateway.#accept(connection));
    return gateway;
  }

  /** `ws://127.0.0.1:<port>`, what `GET /gateway/bot` names. */
  get url(): string {
    return `ws://127.0.0.1:${this.#ws!.port}`;
  }

  /** How many sessions identified so far. */
  get identified(): number {
    return this.#identified;
  }

  /** Sends dispatch `t` with data `d` to every identified session. */
  dispatch(t: string, d: unknown): void {
    for (const session of this.#sessions) {
      session.connection.send(JSON.stringify({ op: 0, d, s: ++session.seq, t }));
    }
  }

  /** Closes every session's connection with `code` (4000: "unknown error, reconnect"). */
  disconnect(code = 4000): void {
    for (const session of this.#sessions) session.connection.close(code);
    this.#sessions.clear();
  }

  /** Drops every session and stops listening. */
  async close(): Promise<void> {
    for (const session of this.#sessions) session.connection.destroy();
    await this.#ws?.close();
  }

  #accept(connection: WsConnection): void {
    const { botToken, applicationId, guildId, channelId } = this.#identity;
    const session = { connection, seq: 0 };
    const send = (op: number, d: unknown, t: string | null = null) =>
      connection.send(JSON.stringify({ op, d, s: t ? ++session.seq : null, t }));
    send(10, { heartbeat_interval: 41_250 });
    connection.onClose = () => this.#sessions.delete(session);
    connection.onText = (text) => {
      const { op, d } = JSON.parse(text) as { op: number; d: Record<string, unknown> };
      if (op === 1) return send(11, null);
      if (op === 6) return send(9, false); // no resuming: identify afresh
      if (op !== 2) return;
      if (d.token !== botToken) return connection.close(4004);
      this.#identified++;
      this.#sessions.add(session);
      send(0, {
        v: 10,
        user: { ...userObject(applicationId, "bub", true), verified: true, flags: 0 },
        guilds: [{ id: guildId, unavailable: true }],
        session_id: `session-${this.#identified}`,
        resume_gateway_url: this.url,
        application: { id: applicationId, flags: 0 },
        shard: [0, 1],
      }, "READY");
      send(0, guildObject(guildId, "1", [channelObject(channelId, guildId)]), "GUILD_CREATE");
    };
  }
}
