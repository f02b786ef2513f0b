/**
 * Private: the messages the fake Bot API's bot sent — `sendMessage`, `editMessageText` and
 * `editMessageReplyMarkup` checked the way Telegram checks them (empty or too long text, inline
 * buttons' `callback_data` of 1–64 bytes, an edit of a message the bot did not send) and kept as
 * they are now, edits applied.
 *
 * @module
 */
import type { FakeUser } from "./_fake_telegram_types.ts";

/** A Bot API method's outcome: its `result`, or an error status and body. */
export type MethodResult =
  | { ok: unknown }
  | { error: { code: number; body: Record<string, unknown> } };

/** Telegram's 400 answer with `description`. */
export function badRequest(description: string): MethodResult {
  return {
    error: { code: 400, body: { error_code: 400, description: `Bad Request: ${description}` } },
  };
}

/** The bot's sent messages, by id. */
export class SentMessages {
  readonly #byId = new Map<number, Record<string, unknown>>();
  readonly #nextId: () => number;
  readonly #bot: FakeUser;

  /**
   * Creates the store.
   *
   * @param nextId the next message id (shared with the users' messages, as in a real chat)
   * @param bot the bot user, the `from` of every sent message
   */
  constructor(nextId: () => number, bot: FakeUser) {
    this.#nextId = nextId;
    this.#bot = bot;
  }

  /** The message `id` as it is now, or undefined. */
  get(id: number): Record<string, unknown> | undefined {
    return this.#byId.get(id);
  }

  /** The messages sent to `chatId`, in order, edits applied. */
  ofChat(chatId: number): Record<string, unknown>[] {
    return [...this.#byId.values()].filter((message) =>
      (message.chat as { id: number }).id === chatId
    );
  }

  /** `sendMessage`. */
  send(params: Record<string, unknown>): MethodResult {
    if (typeof params.text !== "string" || params.text.trim() === "") {
      return badRequest("message text is empty");
    }
    if (params.text.length > 4096) return badRequest("message is too long");
    if (!buttonsValid(params.reply_markup)) return badRequest("BUTTON_DATA_INVALID");
    const chatId = Number(params.chat_id);
    const message: Record<string, unknown> = {
      message_id: this.#nextId(),
      date: Math.floor(Date.now() / 1000),
      from: this.#bot,
      chat: { id: chatId, type: chatId < 0 ? "group" : "private" },
      text: params.text,
      ...(params.reply_markup === undefined ? {} : { reply_markup: params.reply_markup }),
    };
    this.#byId.set(message.message_id as number, message);
    return { ok: structuredClone(message) };
  }

  /** `editMessageText` or `editMessageReplyMarkup`. */
  edit(method: string, params: Record<string, unknown>): MethodResult {
    const message = this.#byId.get(Number(params.message_id));
    if (!message || Number(params.chat_id) !== (message.chat as { id: number }).id) {
      return badRequest("message to edit not found");
    }
    if (!buttonsValid(params.reply_markup)) return badRequest("BUTTON_DATA_INVALID");
    if (method === "editMessageText") {
      if (typeof params.text !== "string" || params.text.trim() === "") {
        return badRequest("message text is empty");
      }
      message.text = params.text;
    }
    // Like Telegram: an edit without reply_markup removes the inline keyboard.
    if (params.reply_markup === undefined) delete message.reply_markup;
    else message.reply_markup = params.reply_markup;
    return { ok: structuredClone(message) };
  }
}

/** Like Telegram: every inline button's `callback_data` is 1 to 64 bytes. */
function buttonsValid(markup: unknown): boolean {
  if (markup === undefined) return true;
  const rows = (markup as { inline_keyboard?: unknown })?.inline_keyboard;
  if (!Array.isArray(rows)) return typeof markup === "object" && markup !== null;
  return rows.every((row) =>
    Array.isArray(row) && row.every((button) => {
      const data = (button as { callback_data?: unknown })?.callback_data;
      if (data === undefined) return true;
      const bytes = typeof data === "string" ? new TextEncoder().encode(data).length : 0;
      return bytes >= 1 && bytes <= 64;
    })
  );
}
