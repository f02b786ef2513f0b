/**
 * A fake Microsoft Teams (Bot Framework) on 127.0.0.1 for tests, serving what Bub's `api_base`
 * and an activity's `serviceUrl` point at: Bot Framework's OpenID metadata and JWKS (an RS256 key
 * it generates), the token endpoint (client credentials checked against the app id and password),
 * and the Bot Connector REST API under `/teams/` (activities sent, updated and deleted are
 * recorded; `rateLimit` answers a route 429 with `Retry-After`). It holds files users send (an
 * inline image behind the attachment service, a personal chat's file behind a download link) and
 * receives the files a bot uploads after a file consent (`_teams_files.ts`). It sends activities
 * to a bot signed with its key, or forged.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type LoopbackServer, parseParams, readBody, reply, startFakeServer } from "./_http.ts";
import { type FakeApiCall, FakeCallLog } from "./_fake_calls.ts";
import {
  generateSigningKey,
  signAccessToken,
  type SigningKey,
  signServiceToken,
  type TeamsDeliveryOptions,
} from "./_teams_jwt.ts";
import {
  connectorMethod,
  type FakeTeamsActivity,
  type FakeTeamsButton,
  TeamsConnector,
} from "./_teams_connector.ts";
import { type FakeTeamsUpload, sendFile, TeamsFiles } from "./_teams_files.ts";
import {
  type ActivityContext,
  clickActivity,
  type FakeTeamsUser,
  fileConsentActivity,
  messageActivity,
  type TeamsConversationOptions,
} from "./_teams_activities.ts";

const TOKEN = /^\/([^/]+)\/oauth2\/v2\.0\/token$/;

/**
 * The fake Teams.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeTeamsServer } from "@bub/core/testing";
 * await using teams = await FakeTeamsServer.start();
 * const metadata = await fetch(`${teams.apiBase}/v1/.well-known/openidconfiguration`);
 * assert.match((await metadata.json()).jwks_uri, /\/v1\/\.well-known\/keys$/);
 * ```
 */
export class FakeTeamsServer implements AsyncDisposable {
  /** The bot's Microsoft app id. */
  readonly appId = "00000000-0000-4000-8000-0000000000b0";
  /** The app's client secret. */
  readonly appPassword = "fake-teams-app-password";
  /** The tenant. */
  readonly tenantId = "00000000-0000-4000-8000-00000000000t";
  /** The bot's name. */
  readonly botName = "bub";
  /** The requests received. */
  readonly log: FakeCallLog = new FakeCallLog();
  #http: LoopbackServer;
  #key: SigningKey;
  #stranger: SigningKey;
  #tokens = new Set<string>();
  #connector = new TeamsConnector();
  #files = new TeamsFiles();
  #rateLimited = new Map<string, number>();

  private constructor(http: LoopbackServer, key: SigningKey, stranger: SigningKey) {
    this.#http = http;
    this.#key = key;
    this.#stranger = stranger;
  }

  /** Starts the fake on a free port. */
  static async start(): Promise<FakeTeamsServer> {
    const [key, stranger] = await Promise.all([
      generateSigningKey("fake-teams-key"),
      generateSigningKey("not-listed-key"),
    ]);
    return await startFakeServer({
      create: (http) => new FakeTeamsServer(http, key, stranger),
      handle: (teams, req, res) => teams.#handle(req, res),
      errorBody: (error) => ({ error: String(error) }),
    });
  }

  /** The login base (`http://127.0.0.1:<port>`), Bub's `api_base`. */
  get apiBase(): string {
    return `http://127.0.0.1:${this.#http.port}`;
  }

  /** The Bot Connector URL the activities name (`<apiBase>/teams/`). */
  get serviceUrl(): string {
    return `${this.apiBase}/teams/`;
  }

  get #context(): ActivityContext {
    return {
      serviceUrl: this.serviceUrl,
      appId: this.appId,
      botName: this.botName,
      tenantId: this.tenantId,
    };
  }

  /** A message from `user` (a DM unless `options.type` is `channel`). */
  message(
    user: FakeTeamsUser,
    text: string,
    options?: TeamsConversationOptions,
  ): Record<string, unknown> {
    return messageActivity(this.#context, user, text, options);
  }

  /**
   * An image pasted into a message: an `image/*` attachment on the fake's attachment service
   * (which serves `data` to the bot's token only).
   */
  inlineImage(data: Uint8Array, contentType = "image/png"): Record<string, unknown> {
    return this.#files.inlineImage(this.serviceUrl, data, contentType);
  }

  /**
   * A file sent in a personal chat: a `file.download.info` attachment whose download link (on the
   * fake, pre-authorized, no token) serves `data`.
   */
  fileDownload(name: string, data: Uint8Array, fileType: string): Record<string, unknown> {
    return this.#files.fileDownload(this.apiBase, name, data, fileType);
  }

  /**
   * `user`'s answer to the file consent card `card` (a bot's activity): `accept` names a fresh
   * upload session of the fake, where the bot is to put the file.
   */
  fileConsent(
    user: FakeTeamsUser,
    card: FakeTeamsActivity,
    action: "accept" | "decline",
    options?: TeamsConversationOptions,
  ): Record<string, unknown> {
    const { answered, upload } = this.#files.consent(this.apiBase, card, action);
    return fileConsentActivity(this.#context, user, answered, action, upload, options);
  }

  /** The files bots uploaded after a file consent, by upload session. */
  get uploads(): ReadonlyMap<string, FakeTeamsUpload> {
    return this.#files.uploads;
  }

  /** `user`'s click on `button`, as Teams sends an `Action.Submit` (a message with `value`). */
  submit(
    user: FakeTeamsUser,
    button: FakeTeamsButton,
    options?: TeamsConversationOptions,
  ): Record<string, unknown> {
    return clickActivity(this.#context, user, button, "submit", options);
  }

  /** `user`'s click on `button` as an `adaptiveCard/action` invoke. */
  invoke(
    user: FakeTeamsUser,
    button: FakeTeamsButton,
    options?: TeamsConversationOptions,
  ): Record<string, unknown> {
    return clickActivity(this.#context, user, button, "invoke", options);
  }

  /** The `Authorization` header Bot Framework would send with `activity` (null: `unsigned`). */
  async authorization(
    activity: Record<string, unknown>,
    options: TeamsDeliveryOptions = {},
  ): Promise<string | null> {
    if (options.unsigned) return null;
    // A forgery names the listed key but is signed by another one.
    const key = options.forged
      ? { ...this.#key, privateKey: this.#stranger.privateKey }
      : this.#key;
    const token = await signServiceToken(key, {
      audience: options.audience ?? this.appId,
      serviceUrl: options.serviceUrl ?? String(activity.serviceUrl),
      ...(options.issuer ? { issuer: options.issuer } : {}),
      ...(options.expiresIn === undefined ? {} : { expiresIn: options.expiresIn }),
    });
    return `Bearer ${token}`;
  }

  /** POSTs `activity` to the bot at `url` with a signed Bearer token, as Bot Framework does. */
  async deliver(
    url: string,
    activity: Record<string, unknown>,
    options: TeamsDeliveryOptions = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    const authorization = await this.authorization(activity, options);
    if (authorization !== null) headers.authorization = authorization;
    return await fetch(url, { method: "POST", headers, body: JSON.stringify(activity) });
  }

  /**
   * Answers the next `times` requests of `method` (as logged; typing activities are let through)
   * with 429 and `Retry-After: 1`.
   */
  rateLimit(method: string, times = 1): void {
    this.#rateLimited.set(method, times);
  }

  /** The activities the bot sent to `conversation` (typing included), in order. */
  activitiesIn(conversation: string): FakeTeamsActivity[] {
    return this.#connector.activitiesIn(conversation);
  }

  /** The `Action.Submit` buttons of the cards the bot sent to `conversation`. */
  buttonsIn(conversation: string): FakeTeamsButton[] {
    return this.#connector.buttonsIn(conversation);
  }

  /** The calls of `method` (`POST /teams/v3/conversations/{conversation}/activities`). */
  callsOf(method: string): FakeApiCall[] {
    return this.log.of(method);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname.replace(/\/{2,}/g, "/");
    const body = await readBody(req);
    const params = parseParams(req, body, url);
    const verb = req.method ?? "GET";
    const method = connectorMethod(verb, path) ??
      (TOKEN.test(path) ? `${verb} /{tenant}/oauth2/v2.0/token` : `${verb} ${path}`);
    const authorization = String(req.headers.authorization ?? "");
    // Typing activities are let through: a limit hits the sends and updates of messages.
    const limited = params.type === "typing" ? 0 : this.#rateLimited.get(method) ?? 0;
    this.log.record({
      method,
      params: { ...params, __path: path, ...(limited ? { rateLimited: true } : {}) },
      authorization,
    });
    if (path === "/v1/.well-known/openidconfiguration") {
      return reply(res, 200, {
        issuer: "https://api.botframework.com",
        jwks_uri: `${this.apiBase}/v1/.well-known/keys`,
        id_token_signing_alg_values_supported: ["RS256"],
      });
    }
    if (path === "/v1/.well-known/keys") return reply(res, 200, { keys: [this.#key.jwk] });
    if (TOKEN.test(path) && verb === "POST") {
      if (params.client_id !== this.appId || params.client_secret !== this.appPassword) {
        return reply(res, 401, { error: "invalid_client" });
      }
      const token = await signAccessToken(this.#key, this.appId, String(params.scope ?? ""));
      this.#tokens.add(token);
      return reply(res, 200, { token_type: "Bearer", expires_in: 3600, access_token: token });
    }
    const open = this.#files.unauthenticated(verb, url, body, {
      authorization,
      contentRange: String(req.headers["content-range"] ?? ""),
    });
    if (open) return sendFile(res, open);
    if (!this.#tokens.has(authorization.replace(/^Bearer /, ""))) {
      return reply(res, 401, { error: { code: "Unauthorized", message: "Bad bot token" } });
    }
    if (limited > 0) {
      this.#rateLimited.set(method, limited - 1);
      res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
      res.end(JSON.stringify({ error: { code: "TooManyRequests" } }));
      return;
    }
    const file = this.#files.attachment(verb, url);
    if (file) return sendFile(res, file);
    const [status, answer] = this.#connector.answer(verb, path, params);
    reply(res, status, answer);
  }

  /** Stops the server. */
  close(): Promise<void> {
    return this.#http.close();
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

export type { FakeTeamsActivity, FakeTeamsButton, FakeTeamsUpload, TeamsDeliveryOptions };
