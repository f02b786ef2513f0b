/**
 * The Telegram channel's Bot API client: the grammy `Bot`, created on first use with the API root
 * and proxy, its update handler and error log; the calls the channel makes besides `send` (the
 * typing action, short replies, file downloads capped at the media limit); and the redaction of
 * the bot token from error texts.
 *
 * @module
 */
import type { Api, Bot, Context } from "grammy";
import type { Message } from "grammy/types";
import { getLogger } from "../../_internal/log.ts";
import { lazyImport } from "../../_internal/lazy.ts";
import { redactedErrorText } from "../../_internal/redact.ts";
import { BubError } from "../../kernel/errors.ts";
import { MAX_MEDIA_BYTES } from "../media_limit.ts";
import { downloadBytes, type ProxyClientOptions, proxyClientOptions } from "./_proxy.ts";

const logger = getLogger(["bub", "channels", "telegram"]);
/** grammy (~70 ms of import time), imported when the bot is first needed (start, send). */
const grammy = lazyImport(() => import("grammy"));

type GrammySignal = Parameters<Api["sendChatAction"]>[3];

/** The connection settings of the channel's options (read when used, like the options). */
export interface BotSettings {
  /** The bot token; empty means the channel is disabled. */
  readonly token: string;
  /** An `http://` or `https://` proxy for Bot API calls. */
  readonly proxy?: string | null;
  /** The Bot API root. */
  readonly apiRoot?: string | null;
  /** Long-poll timeout of `getUpdates` (the client waits 30 s longer). */
  readonly pollTimeoutSeconds?: number;
}

/** The Bot API as the Telegram channel uses it. */
export class BotClient {
  #settings: BotSettings;
  #apiRoot: string;
  #onUpdate: (ctx: Context) => unknown;
  #bot: Bot | null = null;
  #proxy: ProxyClientOptions | null = null;

  /** @param settings token, proxy, API root, poll timeout @param onUpdate handles every update */
  constructor(settings: BotSettings, onUpdate: (ctx: Context) => unknown) {
    this.#settings = settings;
    this.#apiRoot = (settings.apiRoot || "https://api.telegram.org").replace(/\/+$/, "");
    this.#onUpdate = onUpdate;
  }

  /** The bot if it was created, else null. */
  get created(): Bot | null {
    return this.#bot;
  }

  /**
   * The bot, created on first use.
   *
   * @throws {BubError} kind `config` when the token is empty
   */
  async bot(): Promise<Bot> {
    if (this.#bot) return this.#bot;
    if (this.#settings.token.trim() === "") {
      throw new BubError(
        "config",
        "Cannot use the Telegram channel: the bot token is empty (set BUB_TELEGRAM_TOKEN)",
      );
    }
    const poll = this.#settings.pollTimeoutSeconds ?? 30;
    const [{ Bot }, proxy] = await Promise.all([
      grammy(),
      proxyClientOptions(this.#settings.proxy),
    ]);
    if (this.#bot) return this.#bot;
    this.#proxy = proxy;
    const bot = new Bot(this.#settings.token, {
      client: {
        apiRoot: this.#apiRoot,
        timeoutSeconds: poll + 30,
        ...(proxy as Record<string, never> | null),
      },
    });
    bot.use((ctx: Context) => this.#onUpdate(ctx));
    bot.catch((error) =>
      logger.error("telegram.update failed: {error}", { error: this.redact(error.error) })
    );
    this.#bot = bot;
    return bot;
  }

  /** Shows "typing" in the chat (until `signal` aborts the call). */
  async sendTyping(chatId: string, signal: AbortSignal): Promise<void> {
    await (await this.bot()).api.sendChatAction(
      chatId,
      "typing",
      undefined,
      signal as unknown as GrammySignal,
    );
  }

  /** Sends `text` to the message's chat; a failure is logged. */
  reply(message: Message, text: string): void {
    this.bot().then((bot) => bot.api.sendMessage(message.chat.id, text)).catch(
      (error: unknown) => {
        logger.error("telegram.reply failed chat_id={chatId}: {error}", {
          chatId: message.chat.id,
          error: this.redact(error),
        });
      },
    );
  }

  /** A file's bytes; null when over the media limit or failing (logged). */
  async download(fileId: string, fileSize: number | null): Promise<Uint8Array | null> {
    if (fileSize !== null && fileSize > MAX_MEDIA_BYTES) return null;
    try {
      const file = await (await this.bot()).api.getFile(fileId);
      if ((file.file_size ?? 0) > MAX_MEDIA_BYTES || !file.file_path) return null;
      const url = `${this.#apiRoot}/file/bot${this.#settings.token}/${file.file_path}`;
      let data: Uint8Array;
      try {
        data = await downloadBytes(url, this.#proxy);
      } catch (error) {
        throw new Error(`Cannot download ${url}`, { cause: error });
      }
      return data.byteLength > MAX_MEDIA_BYTES ? null : data;
    } catch (error) {
      logger.warning("telegram.download failed file_id={fileId}: {error}", {
        fileId,
        error: this.redact(error),
      });
      return null;
    }
  }

  /** An error's text (with its causes) with the bot token and token-like URL parts redacted. */
  redact(error: unknown): string {
    return redactedErrorText(error, [this.#settings.token.trim()]);
  }
}
