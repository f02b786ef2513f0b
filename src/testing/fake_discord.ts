/**
 * A fake Discord on 127.0.0.1 for tests: the REST API the Chat SDK's Discord adapter and
 * discord.js call (`/gateway/bot`, create / edit message, typing, threads, interaction callbacks;
 * a rate limit answers 429 with `retry_after`), the gateway as a WebSocket server (HELLO,
 * IDENTIFY, READY, GUILD_CREATE, heartbeats, MESSAGE_CREATE and THREAD_CREATE dispatches) and a
 * sender of HTTP interactions (button clicks) signed with an Ed25519 key pair made by WebCrypto.
 * This file is the test's side (messages sent in, attachments, clicks, what the bot posted); the
 * REST API's answers are `_discord_rest.ts`, the gateway `_discord_gateway.ts`.
 *
 * @module
 */
import { type LoopbackServer, startFakeServer } from "./_http.ts";
import { type FakeApiCall, FakeCallLog } from "./_fake_calls.ts";
import {
  buttonsOf,
  componentInteraction,
  messageObject,
  postSignedInteraction,
  type SigningKeys,
  signingKeys,
  snowflake,
  type StoredMessage,
  userObject,
} from "./_discord_payloads.ts";
import { FakeDiscordGateway, type GatewayIdentity } from "./_discord_gateway.ts";
import { type RestState, serveRest } from "./_discord_rest.ts";

/**
 * A Discord user of the fake.
 *
 * @example
 * ```ts
 * import type { FakeDiscordUser } from "@bub/core/testing";
 * const ada: FakeDiscordUser = { id: "100000000000000001", username: "ada" };
 * ```
 */
export interface FakeDiscordUser {
  /** The user's snowflake id. */
  readonly id: string;
  /** The user name. */
  readonly username: string;
}

/**
 * The fake Discord.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeDiscordServer } from "@bub/core/testing";
 * await using discord = await FakeDiscordServer.start();
 * const response = await fetch(`${discord.apiBase}/gateway/bot`, {
 *   headers: { authorization: `Bot ${discord.botToken}` },
 * });
 * assert.match((await response.json()).url, /^ws:\/\/127\.0\.0\.1:\d+$/);
 * ```
 */
export class FakeDiscordServer implements AsyncDisposable {
  /** The bot token the app is configured with. */
  readonly botToken: string;
  /** The application id, also the bot user's id. */
  readonly applicationId: string;
  /** The one guild (server). */
  readonly guildId: string;
  /** Its text channel, where mentions arrive. */
  readonly channelId: string;
  /** The API calls received (`VERB /route`). */
  readonly log: FakeCallLog = new FakeCallLog();
  readonly #http: LoopbackServer;
  readonly #gateway: FakeDiscordGateway;
  readonly #keys: SigningKeys;
  readonly #messages = new Map<string, StoredMessage>();
  readonly #threads = new Map<string, string>();
  readonly #dms = new Map<string, string>();
  readonly #rateLimited = new Map<string, number>();
  readonly #files = new Map<string, { contentType: string; data: Uint8Array }>();
  readonly #rest: RestState;

  private constructor(
    identity: GatewayIdentity,
    http: LoopbackServer,
    gateway: FakeDiscordGateway,
    keys: SigningKeys,
  ) {
    ({
      botToken: this.botToken,
      applicationId: this.applicationId,
      guildId: this.guildId,
      channelId: this.channelId,
    } = identity);
    this.#http = http;
    this.#gateway = gateway;
    this.#keys = keys;
    this.#rest = {
      ...identity,
      gateway,
      log: this.log,
      messages: this.#messages,
      threads: this.#threads,
      rateLimited: this.#rateLimited,
      files: this.#files,
    };
  }

  /** Starts the fake's REST server and gateway on free ports. */
  static async start(): Promise<FakeDiscordServer> {
    return await startFakeServer({
      create: async (http) => {
        const identity: GatewayIdentity = {
          botToken: "fake-discord-bot-token",
          applicationId: snowflake(),
          guildId: snowflake(),
          channelId: snowflake(),
        };
        const gateway = await FakeDiscordGateway.start(identity);
        return new FakeDiscordServer(identity, http, gateway, await signingKeys());
      },
      handle: (discord, req, res) => serveRest(discord.#rest, req, res),
      errorBody: (error) => ({ message: String(error), code: 0 }),
    });
  }

  /** The REST base (`http://127.0.0.1:<port>/api/v10`), Bub's `api_base`. */
  get apiBase(): string {
    return `http://127.0.0.1:${this.#http.port}/api/v10`;
  }

  /** The application's public key (hex), Bub's `public_key`. */
  get publicKey(): string {
    return this.#keys.publicKeyHex;
  }

  /** The bot as a user. */
  get bot(): FakeDiscordUser {
    return { id: this.applicationId, username: "bub" };
  }

  /** How many gateway sessions identified so far. */
  get identified(): number {
    return this.#gateway.identified;
  }

  /** Closes every gateway session (code 4000), as Discord does before asking clients back. */
  disconnectGateway(): void {
    this.#gateway.disconnect();
  }

  /** Answers the next `times` calls of `route` (`POST /channels/{channel}/messages`) with 429. */
  rateLimit(route: string, times = 1): void {
    this.#rateLimited.set(route, times);
  }

  /** The API calls of `route`. */
  callsOf(route: string): FakeApiCall[] {
    return this.log.of(route);
  }

  /** The DM channel of `user` (made on first use). */
  dmChannel(user: FakeDiscordUser): string {
    let id = this.#dms.get(user.id);
    if (!id) this.#dms.set(user.id, id = snowflake());
    return id;
  }

  /** The thread the bot opened on `messageId`, if any. */
  threadOf(messageId: string): string | undefined {
    return [...this.#threads].find(([, origin]) => origin === messageId)?.[0];
  }

  /**
   * Sends a MESSAGE_CREATE from `user` over the gateway: in the text channel (a mention of the
   * bot unless `mention: false`), in `channelId` (a thread) or, with `direct`, in the user's DM.
   * Returns the message; {@link redeliver} sends it again.
   */
  messageCreate(
    user: FakeDiscordUser,
    text: string,
    options: {
      mention?: boolean;
      channelId?: string;
      direct?: boolean;
      attachments?: Record<string, unknown>[];
    } = {},
  ): Record<string, unknown> {
    const mention = options.mention ?? (!options.direct && options.channelId === undefined);
    const channelId = options.direct ? this.dmChannel(user) : options.channelId ?? this.channelId;
    const message = messageObject({
      id: snowflake(),
      channelId,
      // Discord names the channel's type: 1 a DM, 11 a public thread, 0 a text channel.
      channelType: options.direct ? 1 : this.#threads.has(channelId) ? 11 : 0,
      guildId: options.direct ? null : this.guildId,
      author: userObject(user.id, user.username),
      content: mention ? `<@${this.applicationId}> ${text}` : text,
      mentions: mention ? [userObject(this.applicationId, "bub", true)] : [],
      ...(options.attachments ? { attachments: options.attachments } : {}),
    });
    this.redeliver(message);
    return message;
  }

  /**
   * Stores a file on the fake CDN: the attachment object a message carries (its `url` on this
   * server, signed with query parameters as Discord's CDN URLs are; no token needed).
   */
  addAttachment(filename: string, contentType: string, data: Uint8Array): Record<string, unknown> {
    const id = snowflake();
    this.#files.set(id, { contentType, data });
    const base = `http://127.0.0.1:${this.#http.port}/attachments/${this.channelId}/${id}`;
    return {
      id,
      filename,
      content_type: contentType,
      size: data.byteLength,
      url: `${base}/${filename}?ex=ffffffff&is=00000000&hm=fake`,
      proxy_url: `${base}/${filename}`,
    };
  }

  /** Dispatches `message` (again) as MESSAGE_CREATE to every identified session. */
  redeliver(message: Record<string, unknown>): void {
    this.#gateway.dispatch("MESSAGE_CREATE", message);
  }

  /** The bot's messages in `channelId` (content after edits, and their buttons), in order. */
  messagesIn(
    channelId: string,
  ): { id: string; content: string; buttons: { customId: string; label: string }[] }[] {
    return [...this.#messages.values()].filter((m) => m.channelId === channelId).map((m) => ({
      id: m.id,
      content: m.content,
      buttons: buttonsOf(m.components),
    }));
  }

  /**
   * POSTs a signed MESSAGE_COMPONENT interaction to `url`: `user` clicks the button `customId` on
   * the bot's message `messageId`. `forge` signs with another key pair.
   */
  async click(
    url: string,
    user: FakeDiscordUser,
    button: { customId: string; messageId: string },
    options: { forge?: boolean } = {},
  ): Promise<Response> {
    const interaction = this.#interaction(user, button);
    return await this.#postSigned(url, JSON.stringify(interaction), options.forge ?? false);
  }

  /**
   * Dispatches the same click as INTERACTION_CREATE over the gateway, as Discord does for an app
   * without an interactions endpoint URL; the bot acknowledges it with a REST callback
   * (`POST /interactions/{id}/{token}/callback`). Returns the interaction's id.
   */
  clickOverGateway(user: FakeDiscordUser, button: { customId: string; messageId: string }): string {
    const interaction = this.#interaction(user, button);
    this.#gateway.dispatch("INTERACTION_CREATE", interaction);
    return String(interaction.id);
  }

  /** POSTs a signed PING interaction (Discord's check of the endpoint) to `url`. */
  ping(url: string, options: { forge?: boolean } = {}): Promise<Response> {
    const body = JSON.stringify({ id: snowflake(), application_id: this.applicationId, type: 1 });
    return this.#postSigned(url, body, options.forge ?? false);
  }

  #interaction(
    user: FakeDiscordUser,
    button: { customId: string; messageId: string },
  ): Record<string, unknown> {
    const message = this.#messages.get(button.messageId);
    if (!message) throw new Error(`No bot message ${button.messageId}`);
    return componentInteraction({
      applicationId: this.applicationId,
      guildId: this.guildId,
      user: userObject(user.id, user.username),
      customId: button.customId,
      message,
      parentId: this.#threads.has(message.channelId) ? this.channelId : undefined,
      dm: [...this.#dms.values()].includes(message.channelId),
    });
  }

  async #postSigned(url: string, body: string, forge: boolean): Promise<Response> {
    const key = forge ? (await signingKeys()).privateKey : this.#keys.privateKey;
    return await postSignedInteraction(url, key, body);
  }

  /** Stops the REST server and the gateway. */
  async close(): Promise<void> {
    await Promise.all([this.#http.close(), this.#gateway.close()]);
  }

  /** Same as {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
