/**
 * A fake Google Chat on 127.0.0.1 for tests, with keys of its own: the certificates of the
 * signing account `chat@system.gserviceaccount.com` (`GET /certs`) and Google's OIDC
 * certificates (`GET /oauth2/v1/certs`, for Workspace add-on tokens), the OAuth token endpoint
 * checking a service account's JWT bearer grant (`POST /token`), the Chat API calls the Chat
 * SDK's adapter makes (`POST /v1/spaces/<s>/messages`, `PUT` or `PATCH
 * /v1/spaces/<s>/messages/<m>`, anything else 404), a one-shot 429, and a sender of interaction
 * events (messages, button clicks) in the Workspace add-on shape, with a Bearer JWT signed as
 * Google signs them.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createVerify } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type LoopbackServer, parseParams, readBody, reply, startFakeServer } from "./_http.ts";
import { type FakeApiCall, FakeCallLog } from "./_fake_calls.ts";
import {
  CHAT_ISSUER,
  clickEvent,
  type FakeGChatMessage,
  type FakeGChatUser,
  type GChatMessageOptions,
  GOOGLE_TOKEN_URL,
  keyPair,
  messageEvent,
  signJwt,
} from "./_gchat_payloads.ts";

export type { FakeGChatMessage, FakeGChatUser, GChatMessageOptions } from "./_gchat_payloads.ts";

/** The logged method of a media download. */
const MEDIA = "GET /v1/media/{resource}";

/**
 * The fake Google Chat.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeGChatServer } from "@bub/core/testing";
 * await using gchat = await FakeGChatServer.start();
 * const certs = await (await fetch(gchat.certsUrl)).json();
 * assert.equal(Object.keys(certs).length, 1);
 * ```
 */
export class FakeGChatServer implements AsyncDisposable {
  /** The Google Cloud project number (the audience of the event tokens). */
  readonly projectNumber = "123456789012";
  /** The app's HTTP endpoint URL (the audience of add-on tokens; it routes no request here). */
  readonly endpointUrl = "https://bub.example.test/webhooks/gchat";
  /** The service account of the app's Workspace add-on, which signs add-on events. */
  readonly addOnAccount = "service-123456789012@gcp-sa-gsuiteaddons.iam.gserviceaccount.com";
  /** The app's user resource name. */
  readonly bot: FakeGChatUser = { name: "users/app-bub", displayName: "Bub" };
  /** The service account key the bot uses (JSON, as Google hands it out). */
  readonly credentials: string;
  /** The API calls received (`method` is `VERB /path`, `/token` included). */
  readonly log: FakeCallLog = new FakeCallLog();
  #http: LoopbackServer;
  #chatKey = keyPair();
  #googleKey = keyPair();
  #account = keyPair();
  #email = "bub-bot@acme-project.iam.gserviceaccount.com";
  #token = `ya29.fake-${crypto.randomUUID()}`;
  #messages = new Map<string, FakeGChatMessage>();
  #nextId = 1;
  #rateLimited = new Map<string, number>();
  #media = new Map<string, { data: Uint8Array; contentType: string }>();

  private constructor(http: LoopbackServer) {
    this.#http = http;
    this.credentials = JSON.stringify({
      type: "service_account",
      client_email: this.#email,
      private_key: this.#account.privateKey,
    });
  }

  /** Starts the fake on a free port. */
  static async start(): Promise<FakeGChatServer> {
    return await startFakeServer({
      create: (http) => new FakeGChatServer(http),
      handle: (gchat, req, res) => gchat.#handle(req, res),
      errorBody: (error) => ({ error: { message: String(error) } }),
    });
  }

  /** The Chat API root (`http://127.0.0.1:<port>/`), Bub's `api_base`. */
  get apiBase(): string {
    return `http://127.0.0.1:${this.#http.port}/`;
  }

  /** The token endpoint, Bub's `token_url`. */
  get tokenUrl(): string {
    return `${this.apiBase}token`;
  }

  /** The signing account's certificates, Bub's `certs_url`. */
  get certsUrl(): string {
    return `${this.apiBase}certs`;
  }

  /** Google's OIDC certificates (of add-on tokens), Bub's `oidc_certs_url`. */
  get oidcCertsUrl(): string {
    return `${this.apiBase}oauth2/v1/certs`;
  }

  /** The bot's messages in `space` (`spaces/AAA`), in order. */
  messagesIn(space: string): FakeGChatMessage[] {
    return [...this.#messages.values()].filter((m) => m.name.startsWith(`${space}/`));
  }

  /** Answers the next `times` calls of `VERB /path` with 429 (logged with `rateLimited`). */
  rateLimit(method: string, times = 1): void {
    this.#rateLimited.set(method, times);
  }

  /** The calls of `VERB /path`. */
  callsOf(method: string): FakeApiCall[] {
    return this.log.of(method);
  }

  /**
   * A file uploaded to a message: an attachment whose `attachmentDataRef.resourceName` the media
   * download serves (`data`, to the service account's token only).
   */
  attachment(name: string, contentType: string, data: Uint8Array): Record<string, unknown> {
    const resourceName = `ClxzcGFjZXMv${this.#nextId++}${crypto.randomUUID().replaceAll("-", "")}`;
    this.#media.set(resourceName, { data, contentType });
    return {
      name: `spaces/AAA/messages/m/attachments/${resourceName.slice(-8)}`,
      contentName: name,
      contentType,
      attachmentDataRef: { resourceName },
      downloadUri: `https://chat.google.com/api/get_attachment_url?url_type=DOWNLOAD_URL&n=${name}`,
      source: "UPLOADED_CONTENT",
    };
  }

  /** A Google Drive file shared in a message (no bytes here: an app cannot read it). */
  driveAttachment(name: string, contentType: string): Record<string, unknown> {
    return {
      name: `spaces/AAA/messages/m/attachments/drive${this.#nextId++}`,
      contentName: name,
      contentType,
      driveDataRef: { driveFileId: crypto.randomUUID() },
      source: "DRIVE_FILE",
    };
  }

  /** The media downloads received (`GET /v1/media/<resource>`). */
  get mediaDownloads(): FakeApiCall[] {
    return this.log.of(MEDIA);
  }

  /**
   * A message event: `user` writes `text` in `space`, in `thread` (default: a new one), mentioning
   * the bot unless `mention` is false; `dm` makes the space a direct message.
   */
  messageEvent(
    user: FakeGChatUser,
    text: string,
    options: GChatMessageOptions = {},
  ): Record<string, unknown> {
    return messageEvent(this.bot, user, text, `m${this.#nextId++}`, options);
  }

  /** A button click event: `user` clicks `button` of the bot's `message`. */
  clickEvent(
    user: FakeGChatUser,
    message: FakeGChatMessage,
    button: { actionId: string; value: string },
  ): Record<string, unknown> {
    return clickEvent(user, message, button);
  }

  /**
   * POSTs `event` to `url` as Google Chat does, with a Bearer JWT: by default one of
   * `chat@system.gserviceaccount.com` for the project number; with `addOn`, a Google OIDC token
   * of that add-on account (`true`: the app's own, {@link addOnAccount}) for the
   * {@link endpointUrl}. `forged` signs with another key, `audience` names another one.
   */
  async deliver(url: string, event: Record<string, unknown>, options: {
    forged?: boolean;
    audience?: string;
    unsigned?: boolean;
    addOn?: string | true;
  } = {}): Promise<Response> {
    const now = Math.floor(Date.now() / 1000);
    const addOn = options.addOn === true ? this.addOnAccount : options.addOn;
    const signer = addOn ? this.#googleKey : this.#chatKey;
    const key = options.forged ? keyPair().privateKey : signer.privateKey;
    const claims = addOn
      ? { iss: "https://accounts.google.com", email: addOn, email_verified: true }
      : { iss: CHAT_ISSUER };
    const token = signJwt(key, addOn ? "google-key-1" : "chat-key-1", {
      ...claims,
      aud: options.audience ?? (addOn ? this.endpointUrl : this.projectNumber),
      iat: now,
      exp: now + 3600,
    });
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (!options.unsigned) headers.authorization = `Bearer ${token}`;
    return await fetch(url, { method: "POST", headers, body: JSON.stringify(event) });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    const params = parseParams(req, body, url);
    const verb = req.method ?? "GET";
    const media = /^\/v1\/media\/(.+)$/.exec(url.pathname);
    const method = media ? `${verb} /v1/media/{resource}` : `${verb} ${url.pathname}`;
    const authorization = String(req.headers.authorization ?? "");
    const limited = this.#rateLimited.get(method) ?? 0;
    this.log.record({
      method,
      params: limited > 0 ? { ...params, rateLimited: true } : params,
      authorization,
    });
    if (method === "GET /certs") return reply(res, 200, { "chat-key-1": this.#chatKey.publicKey });
    if (method === "GET /oauth2/v1/certs") {
      return reply(res, 200, { "google-key-1": this.#googleKey.publicKey });
    }
    if (method === "POST /token") return this.#grant(res, params);
    if (authorization !== `Bearer ${this.#token}`) {
      return reply(res, 401, { error: { code: 401, message: "Request had invalid credentials" } });
    }
    if (limited > 0) {
      this.#rateLimited.set(method, limited - 1);
      return reply(res, 429, { error: { code: 429, message: "Resource has been exhausted" } });
    }
    if (media && verb === "GET") {
      const file = this.#media.get(decodeURIComponent(media[1]!));
      if (!file || url.searchParams.get("alt") !== "media") {
        return reply(res, 404, { error: { code: 404, message: "Media not found" } });
      }
      res.writeHead(200, { "content-type": file.contentType });
      res.end(file.data);
      return;
    }
    const create = /^\/v1\/(spaces\/[^/]+)\/messages$/.exec(url.pathname);
    if (verb === "POST" && create) {
      const thread = (params.thread as { name?: string } | undefined)?.name ?? null;
      const message: FakeGChatMessage = {
        name: `${create[1]}/messages/bot${this.#nextId++}`,
        thread,
        text: "",
        buttons: [],
        viewer: (params.privateMessageViewer as { name?: string } | undefined)?.name ?? null,
      };
      this.#apply(message, params);
      this.#messages.set(message.name, message);
      return reply(res, 200, { name: message.name, text: message.text, thread: { name: thread } });
    }
    const stored = this.#messages.get(url.pathname.replace(/^\/v1\//, ""));
    if ((verb === "PUT" || verb === "PATCH") && stored) {
      this.#apply(stored, params);
      return reply(res, 200, { name: stored.name, text: stored.text });
    }
    reply(res, 404, { error: { code: 404, message: `Not found: ${method}` } });
  }

  /** Sets a message's text and buttons from a create or update request body. */
  #apply(message: FakeGChatMessage, params: Record<string, unknown>): void {
    if (typeof params.text === "string") message.text = params.text;
    if (!Array.isArray(params.cardsV2)) return;
    const found = JSON.stringify(params.cardsV2).matchAll(
      /"parameters":\[\{"key":"actionId","value":"([^"]*)"\},\{"key":"value","value":"([^"]*)"\}/g,
    );
    message.buttons = [...found].map(([, actionId, value]) => ({
      actionId: actionId!,
      value: value!,
    }));
  }

  /** The JWT bearer grant: an assertion signed by the service account for Google's token URL. */
  #grant(res: ServerResponse, params: Record<string, unknown>): void {
    const [header = "", claims = "", signature = ""] = String(params.assertion ?? "").split(".");
    const valid = params.grant_type === "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
      createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(
        this.#account.publicKey,
        signature,
        "base64url",
      );
    const payload = valid ? JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) : {};
    if (!valid || payload.iss !== this.#email || payload.aud !== GOOGLE_TOKEN_URL) {
      return reply(res, 400, { error: "invalid_grant", error_description: "Invalid JWT" });
    }
    reply(res, 200, { access_token: this.#token, expires_in: 3600, token_type: "Bearer" });
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
