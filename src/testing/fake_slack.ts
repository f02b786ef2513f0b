/**
 * A fake Slack on 127.0.0.1 for tests: the Web API methods the Chat SDK's Slack adapter calls
 * (`auth.test`, `chat.postMessage`, `chat.update`, `users.info`, …; anything else answers `ok`),
 * a sender of signed Events API webhooks (Slack's `v0` HMAC signature, retry headers) and socket
 * mode (`apps.connections.open` with the app token, then a WebSocket of envelopes: {@link
 * FakeSlackServer.socket}).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type LoopbackServer, parseParams, readBody, reply, startFakeServer } from "./_http.ts";
import { type FakeApiCall, FakeCallLog, hmacHex } from "./_fake_calls.ts";
import {
  blockActionsPayload,
  type MessageEventOptions,
  messageEventPayload,
  webApiAnswer,
} from "./_slack_payloads.ts";
import {
  postedButtons,
  type PostedMessage,
  postedMessages,
  type SlackButton,
} from "./_slack_posted.ts";
import { FakeSlackSocket } from "./_slack_socket.ts";

export type { FakeApiCall } from "./_fake_calls.ts";
export type { FakeSlackSocket, SocketEnvelope, SocketSendOptions } from "./_slack_socket.ts";
export type { PostedMessage, SlackButton } from "./_slack_posted.ts";
export type { MessageEventOptions } from "./_slack_payloads.ts";

/**
 * Options of one delivered event.
 *
 * @example
 * ```ts
 * import type { SlackDeliveryOptions } from "@bub/core/testing";
 * const retry: SlackDeliveryOptions = { eventId: "Ev000001", retryNum: 1 };
 * ```
 */
export interface SlackDeliveryOptions {
  /** The `event_id` (default: a fresh one); a redelivery reuses it. */
  eventId?: string;
  /** Sends `X-Slack-Retry-Num` (and `X-Slack-Retry-Reason: http_timeout`). */
  retryNum?: number;
  /** Signs with this secret instead of the real one (a forgery). */
  secret?: string;
  /** Leaves the signature headers out. */
  unsigned?: boolean;
}

/**
 * The fake Slack.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeSlackServer } from "@bub/core/testing";
 * await using slack = await FakeSlackServer.start();
 * const response = await fetch(`${slack.apiBase}auth.test`, {
 *   method: "POST",
 *   headers: { authorization: `Bearer ${slack.botToken}` },
 * });
 * assert.equal((await response.json()).user_id, slack.botUserId);
 * ```
 */
export class FakeSlackServer implements AsyncDisposable {
  /** The bot token the app is configured with. */
  readonly botToken = "xoxb-fake-slack-token";
  /** The signing secret of the app's webhooks. */
  readonly signingSecret = "fake-slack-signing-secret";
  /** The app-level token of socket mode (`apps.connections.open`). */
  readonly appToken = "xapp-fake-slack-app-token";
  /** The bot's user id. */
  readonly botUserId = "UBUB";
  /** The workspace. */
  readonly teamId = "T0001";
  /** The API calls received. */
  readonly log: FakeCallLog = new FakeCallLog();
  /** Socket mode: the connections, the envelopes sent over them and their acknowledgements. */
  readonly socket: FakeSlackSocket;
  #http: LoopbackServer;
  #ts = 1_700_000_000;
  #rateLimited = new Map<string, number>();
  #eventId = 1;
  #files = new Map<string, { mimeType: string; data: Uint8Array }>();
  /** Files the bot uploaded (`files.uploadV2`): name and bytes by file id. */
  readonly uploads: Map<string, { filename: string; data: Uint8Array | null }> = new Map();

  private constructor(http: LoopbackServer, socket: FakeSlackSocket) {
    this.#http = http;
    this.socket = socket;
  }

  /** Starts the fake on a free port. */
  static async start(): Promise<FakeSlackServer> {
    return await startFakeServer({
      create: async (http) =>
        new FakeSlackServer(http, await FakeSlackSocket.start("xapp-fake-slack-app-token")),
      handle: (slack, req, res) => slack.#handle(req, res),
      errorBody: (error) => ({ ok: false, error: String(error) }),
    });
  }

  /** The Web API base (`http://127.0.0.1:<port>/api/`), Bub's `api_base`. */
  get apiBase(): string {
    return `http://127.0.0.1:${this.#http.port}/api/`;
  }

  /**
   * Answers the next `times` calls of `method` with HTTP 429 and `Retry-After: 1`, as Slack's
   * rate limiter does (the calls are logged with `rateLimited: true` in their params).
   */
  rateLimit(method: string, times = 1): void {
    this.#rateLimited.set(method, times);
  }

  /** The API calls of `method`. */
  callsOf(method: string): FakeApiCall[] {
    return this.log.of(method);
  }

  /** A fresh message timestamp. */
  nextTs(): string {
    this.#ts += 1;
    return `${this.#ts}.000100`;
  }

  /**
   * Uploads a file to the fake workspace: the Slack file object a message event carries
   * (`url_private` on this server, served only with the bot token, as Slack does).
   */
  addFile(name: string, mimeType: string, data: Uint8Array): Record<string, unknown> {
    const id = `F${String(this.#files.size + 1).padStart(6, "0")}`;
    this.#files.set(id, { mimeType, data });
    return {
      id,
      name,
      mimetype: mimeType,
      size: data.byteLength,
      url_private: `http://127.0.0.1:${this.#http.port}/files-pri/${this.teamId}-${id}/${name}`,
    };
  }

  /** An `event_callback` payload of a channel message from `user` (a mention of the bot by default). */
  messageEvent(
    user: string,
    text: string,
    options: MessageEventOptions = {},
  ): Record<string, unknown> {
    return messageEventPayload({ teamId: this.teamId, botUserId: this.botUserId }, user, text, {
      ...options,
      ts: options.ts ?? this.nextTs(),
      eventId: options.eventId ?? `Ev${String(this.#eventId++).padStart(6, "0")}`,
    });
  }

  /** POSTs `payload` to `url` as Slack does (signed unless told otherwise); returns the response. */
  async deliver(
    url: string,
    payload: Record<string, unknown>,
    options: SlackDeliveryOptions = {},
  ): Promise<Response> {
    const body = JSON.stringify(
      options.eventId ? { ...payload, event_id: options.eventId } : payload,
    );
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (!options.unsigned) {
      headers["x-slack-request-timestamp"] = timestamp;
      headers["x-slack-signature"] = `v0=${
        hmacHex(options.secret ?? this.signingSecret, `v0:${timestamp}:${body}`)
      }`;
    }
    if (options.retryNum !== undefined) {
      headers["x-slack-retry-num"] = String(options.retryNum);
      headers["x-slack-retry-reason"] = "http_timeout";
    }
    return await fetch(url, { method: "POST", headers, body });
  }

  /**
   * Delivers a signed `block_actions` interaction (form-encoded `payload=`): `user` clicks the
   * button `actionId` carrying `value` on the message `messageTs` of the thread `threadTs`.
   */
  async click(
    url: string,
    user: string,
    button: SlackButton,
    options: { channel?: string; secret?: string } = {},
  ): Promise<Response> {
    const payload = this.clickPayload(user, button, options.channel);
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const timestamp = String(Math.floor(Date.now() / 1000));
    return await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": `v0=${
          hmacHex(options.secret ?? this.signingSecret, `v0:${timestamp}:${body}`)
        }`,
      },
      body,
    });
  }

  /**
   * The `block_actions` payload of `user` clicking `button` in `channel` (default `C0001`): what
   * {@link click} posts, or an `interactive` envelope of socket mode carries.
   */
  clickPayload(user: string, button: SlackButton, channel = "C0001"): Record<string, unknown> {
    return blockActionsPayload(this.teamId, user, channel, button, this.nextTs());
  }

  /** The buttons the bot posted in `channel` (Block Kit `actions` elements), in order. */
  buttonsIn(channel: string): SlackButton[] {
    return postedButtons(this.log.calls, channel);
  }

  /** The texts posted or last updated in `channel`, in order of posting. */
  messagesIn(channel: string): PostedMessage[] {
    return postedMessages(this.log.calls, channel);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    const params = parseParams(req, body, url);
    const method = url.pathname.replace(/^\/api\//, "");
    const authorization = String(req.headers.authorization ?? "");
    if (url.pathname.startsWith("/files-pri/")) return this.#serveFile(url, authorization, res);
    if (url.pathname.startsWith("/upload/")) {
      // The upload URL files.getUploadURLExternal handed out: the file's bytes.
      const upload = this.uploads.get(url.pathname.slice("/upload/".length));
      if (upload) upload.data = body;
      return reply(res, upload ? 200 : 404, { ok: Boolean(upload) });
    }
    const token = authorization.replace(/^Bearer\s+/i, "") || String(params.token ?? "");
    if (method === "apps.connections.open") {
      this.log.record({ method, params, authorization });
      return reply(res, 200, this.socket.open(token));
    }
    const limited = this.#rateLimited.get(method) ?? 0;
    if (limited > 0) {
      this.#rateLimited.set(method, limited - 1);
      this.log.record({ method, params: { ...params, rateLimited: true }, authorization });
      res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
      res.end(JSON.stringify({ ok: false, error: "ratelimited" }));
      return;
    }
    if (token !== this.botToken) {
      this.log.record({ method, params, authorization });
      return reply(res, 200, { ok: false, error: "invalid_auth" });
    }
    if (method === "chat.postMessage" || method === "chat.startStream") {
      params.__ts = this.nextTs();
    }
    if (method === "files.getUploadURLExternal") {
      const id = `FUP${this.uploads.size + 1}`;
      this.uploads.set(id, { filename: String(params.filename ?? ""), data: null });
      params.__upload = {
        file_id: id,
        upload_url: `http://127.0.0.1:${this.#http.port}/upload/${id}`,
      };
    }
    this.log.record({ method, params, authorization });
    reply(
      res,
      200,
      webApiAnswer(method, params, { teamId: this.teamId, botUserId: this.botUserId }),
    );
  }

  #serveFile(url: URL, authorization: string, res: ServerResponse): void {
    this.log.record({ method: "files-pri", params: { path: url.pathname }, authorization });
    const id = /^\/files-pri\/[^/-]+-([^/]+)\//.exec(url.pathname)?.[1] ?? "";
    const file = this.#files.get(id);
    if (authorization !== `Bearer ${this.botToken}` || !file) {
      // Slack answers an unauthorized file download with its HTML login page.
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>Sign in to Slack</html>");
      return;
    }
    res.writeHead(200, { "content-type": file.mimeType, "content-length": file.data.byteLength });
    res.end(file.data);
  }

  /** Stops the server and its socket-mode endpoint. */
  async close(): Promise<void> {
    await this.socket.close();
    await this.#http.close();
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
