/**
 * The Telegram channel (spec/builtin.md §10.5): long polling with grammy, allowlists, group
 * filtering, media, a typing indicator and outbound text split at Telegram's length limit. The
 * Bot API client (the lazily created bot, downloads, token redaction) is `_bot_client.ts`;
 * inbound updates are handled in `_updates.ts`.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import type { MessageHandler } from "../../kernel/channel.ts";
import type { ChannelMessage } from "../../kernel/channel_message.ts";
import { Channel } from "../channel.ts";
import { AccessPolicy, openGatewayError } from "./_access.ts";
import { outboundText } from "../outbound_text.ts";
import { approvalKeyboard, askedRequests, finishApprovalPress } from "./_approvals.ts";
import { BotClient } from "./_bot_client.ts";
import { handleUpdate, type UpdateContext } from "./_updates.ts";
import { telegramFileOf } from "./_parse.ts";
import { splitMessageText } from "./_split.ts";
import { TypingIndicators, type TypingLifespan } from "./_typing.ts";
import { typingWhileStreaming } from "./_stream.ts";
import type { Envelope } from "../../kernel/envelope.ts";
import { inboundOf } from "../../kernel/inbound.ts";
import type { StreamEvent } from "../../kernel/stream_events.ts";

export { parseAllowList } from "./_access.ts";
export { splitMessageText, TELEGRAM_MESSAGE_LIMIT } from "./_split.ts";
export type { TypingLifespan } from "./_typing.ts";
export { COMMAND_DENIED_MESSAGE, NO_ACCESS_MESSAGE } from "./_updates.ts";

const logger = getLogger(["bub", "channels", "telegram"]);

/**
 * Options of {@link TelegramChannel}.
 *
 * @example
 * ```ts
 * import { TelegramChannel, type TelegramChannelOptions } from "@bub/core/channels";
 * const options: TelegramChannelOptions = {
 *   handler: async () => {},
 *   token: "123:abc",
 *   allowUsers: ["42"],
 *   apiRoot: "http://127.0.0.1:8081",
 * };
 * const channel = new TelegramChannel(options);
 * ```
 */
export interface TelegramChannelOptions {
  /** Receives inbound messages (the channel manager's handler). */
  handler: MessageHandler;
  /** The bot token; empty disables the channel. */
  token: string;
  /**
   * User ids or usernames allowed to talk; `["*"]` = everyone. Comma commands are accepted only
   * from users literally listed here. With neither this nor `allowChats` set, `start` refuses.
   */
  allowUsers?: readonly string[] | null;
  /** Chat ids served; null or empty = every chat (`allowUsers` then decides). Others are ignored. */
  allowChats?: readonly string[] | null;
  /** An `http://` or `https://` proxy for Bot API calls. */
  proxy?: string | null;
  /** The Bot API root. @default "https://api.telegram.org" */
  apiRoot?: string | null;
  /** Long-poll timeout of `getUpdates`. @default 30 */
  pollTimeoutSeconds?: number;
  /** How often the typing action is renewed. @default 4 */
  typingIntervalSeconds?: number;
}

/**
 * The `telegram` channel: serves a bot through long polling. Inbound messages go to the handler
 * with session `telegram:<chat_id>`, JSON content with sender metadata, lazily downloaded media,
 * a typing lifespan and `outputChannel: "null"` (replies go through the `telegram` skill); comma
 * commands come as plain command messages whose output returns to the chat. `send` posts plain
 * text, split into several messages over 4096 characters.
 *
 * @example Sending a reply through the Bot API
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChannelMessage } from "@bub/core";
 * import { TelegramChannel } from "@bub/core/channels";
 * import { FakeTelegramServer } from "@bub/core/testing";
 * await using api = await FakeTelegramServer.start(); // the Bot API on loopback
 * const channel = new TelegramChannel({
 *   handler: async () => {},
 *   token: api.token,
 *   apiRoot: api.apiRoot,
 *   allowUsers: ["42"],
 * });
 * await channel.send(
 *   new ChannelMessage({ sessionId: "telegram:42", channel: "telegram", chatId: "42", content: "hi" }),
 * );
 * assert.equal(api.callsOf("sendMessage")[0]?.params.text, "hi");
 * ```
 */
export class TelegramChannel extends Channel {
  /** Always `"telegram"`. */
  readonly name: string = "telegram";
  /**
   * Drop the updates queued before polling starts (default true). A cluster's elected poller sets
   * it to false, so a takeover loses no message (the inbox deduplicates re-fetched ones).
   */
  dropPendingUpdates = true;
  #options: TelegramChannelOptions;
  #access: AccessPolicy;
  #client: BotClient;
  #polling: Promise<void> | null = null;
  #stopping = false;
  #typing: TypingIndicators;
  #updates: UpdateContext;

  /**
   * Creates the channel (no I/O until `start` or `send`).
   *
   * @param options token, handler, allowlists and connection settings
   * @throws {TypeError} when the handler is not a function or the token not a string
   * @throws {RangeError} when a timing option is not a positive number
   */
  constructor(options: TelegramChannelOptions) {
    super();
    if (typeof options.handler !== "function") {
      throw new TypeError(
        `Telegram channel handler must be a function, got ${typeof options.handler}`,
      );
    }
    if (typeof options.token !== "string") {
      throw new TypeError(`Telegram bot token must be a string, got ${typeof options.token}`);
    }
    for (const key of ["pollTimeoutSeconds", "typingIntervalSeconds"] as const) {
      const value = options[key];
      if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
        throw new RangeError(
          `Telegram channel option ${key} must be a positive number, got ${value}`,
        );
      }
    }
    this.#options = options;
    this.#access = new AccessPolicy(options.allowUsers, options.allowChats);
    const client = new BotClient(options, (ctx) => handleUpdate(ctx.update, ctx.me, this.#updates));
    this.#client = client;
    const interval = (options.typingIntervalSeconds ?? 4) * 1000;
    this.#typing = new TypingIndicators(
      (chatId, signal) => client.sendTyping(chatId, signal),
      interval,
    );
    this.#updates = {
      channel: this.name,
      access: this.#access,
      handler: options.handler,
      typing: this.#typing,
      reply: (message, text) => client.reply(message, text),
      download: (fileId, fileSize) => client.download(fileId, fileSize),
      redact: (error) => client.redact(error),
      api: async () => (await client.bot()).api,
    };
  }

  /** True: bursts of messages are merged. */
  override get needsDebounce(): boolean {
    return true;
  }

  /** True when a token is configured. */
  override get enabled(): boolean {
    return this.#options.token.trim() !== "";
  }

  /** True while long polling runs. */
  get polling(): boolean {
    return this.#polling !== null;
  }

  /**
   * Starts long polling in the background and returns at once.
   *
   * @throws {BubError} kind `config` (as a rejection) when neither allowlist is set
   */
  async start(_stop: AbortController): Promise<void> {
    if (this.#polling) return;
    if (!this.#access.configured) throw openGatewayError();
    const bot = await this.#client.bot();
    if (this.#polling) return;
    const open = this.#access.openWarning();
    if (open !== null) logger.warning(open);
    logger.info(
      "telegram.start allow_users_count={allowUsers} allow_chats_count={allowChats} proxy_enabled={proxy}",
      {
        allowUsers: this.#access.users.size,
        allowChats: this.#access.chats.size,
        proxy: Boolean(this.#options.proxy),
      },
    );
    this.#stopping = false;
    this.#polling = bot.start({
      drop_pending_updates: this.dropPendingUpdates,
      // Button presses (approvals) come as callback queries.
      allowed_updates: ["message", "callback_query"],
      timeout: this.#options.pollTimeoutSeconds ?? 30,
      onStart: () => logger.info("telegram.start polling"),
    }).catch((error: unknown) => {
      const text = this.#client.redact(error);
      if (this.#stopping) logger.debug("telegram.polling ended: {error}", { error: text });
      else logger.error("telegram.polling failed: {error}", { error: text });
    }).finally(() => {
      this.#polling = null;
    });
  }

  /** Stops polling and every typing loop; errors are logged, never thrown. */
  async stop(): Promise<void> {
    const bot = this.#client.created;
    const polling = this.#polling;
    this.#stopping = true;
    try {
      if (bot?.isRunning()) await bot.stop();
    } catch (error) {
      logger.debug("telegram.stop error={error}", { error: this.#client.redact(error) });
    }
    await polling;
    await this.#typing.cancelAll();
    logger.info("telegram.stopped");
  }

  /**
   * Sends an outbound message's text (its JSON `message` field, else the content) to its chat as
   * plain text; blank text sends nothing; longer texts go as several messages in order. An
   * answer that asks for approvals gets Approve / Always / Deny buttons on its last message; the
   * answer to a pressed button first answers the press and edits its message (see
   * `_approvals.ts`).
   */
  override async send(message: ChannelMessage): Promise<void> {
    const text = outboundText(String(message.content ?? ""));
    const context = message.context ?? {};
    const { api } = await this.#client.bot();
    await finishApprovalPress(context, api, (error) => this.#client.redact(error), text);
    if (text.trim() === "") return;
    const requests = askedRequests(context);
    const pieces = splitMessageText(text);
    for (const [i, piece] of pieces.entries()) {
      const last = i === pieces.length - 1;
      await api.sendMessage(
        message.chatId,
        piece,
        last && requests.length > 0 ? { reply_markup: approvalKeyboard(requests) } : undefined,
      );
    }
  }

  /**
   * Re-yields a streamed turn's events while the chat shows "typing", logging each tool call
   * from its `tool_start`/`tool_end` events (used when `stream_output` is on).
   */
  override streamEvents(
    message: Envelope,
    stream: AsyncIterable<StreamEvent>,
  ): AsyncIterable<StreamEvent> {
    return typingWhileStreaming(this.#typing, inboundOf(message).chatId, stream);
  }

  /**
   * The Telegram file behind a media item of an inbound message (a cluster stores it with the
   * message, so another instance can fetch the bytes); null for other items.
   */
  mediaSource(item: unknown): Record<string, unknown> | null {
    const file = telegramFileOf(item);
    return file ? { fileId: file.fileId, fileSize: file.fileSize } : null;
  }

  /** Fetches the bytes of a {@link mediaSource} (null when it is not one). */
  mediaFetcher(source: Record<string, unknown>): (() => Promise<Uint8Array | null>) | null {
    const { fileId, fileSize } = source;
    if (typeof fileId !== "string" || fileId === "") return null;
    const size = typeof fileSize === "number" ? fileSize : null;
    return () => this.#client.download(fileId, size);
  }

  /** The typing lifespan for `chatId` (enter starts it, disposal stops it; nested use is a no-op). */
  typingLifespan(chatId: string): TypingLifespan {
    return this.#typing.lifespan(chatId);
  }
}
