/**
 * Splitting outbound text at Telegram's message length limit.
 *
 * @module
 */

/**
 * Telegram's limit on the length of one text message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitMessageText, TELEGRAM_MESSAGE_LIMIT } from "@bub/core/channels";
 * const parts = splitMessageText("x".repeat(TELEGRAM_MESSAGE_LIMIT + 1));
 * assert.equal(parts.length, 2);
 * ```
 */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Splits `text` into consecutive pieces of at most `limit` UTF-16 units whose concatenation is the
 * text. A cut prefers the last newline in the second half of the window, then the last space, and
 * never separates a surrogate pair. Whitespace-only pieces are left out.
 *
 * @throws {RangeError} when `limit` is below 2
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitMessageText } from "./_split.ts";
 * const parts = splitMessageText("a".repeat(6) + "\n" + "b".repeat(6), 10);
 * assert.ok(parts.length === 2 && parts[0] === "aaaaaa\n");
 * ```
 */
export function splitMessageText(text: string, limit: number = TELEGRAM_MESSAGE_LIMIT): string[] {
  if (!Number.isInteger(limit) || limit < 2) {
    throw new RangeError(`Message limit must be an integer of at least 2, got ${limit}`);
  }
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    const half = Math.floor(limit / 2);
    let cut = window.lastIndexOf("\n") + 1;
    if (cut <= half) cut = window.lastIndexOf(" ") + 1;
    if (cut <= half) cut = isHighSurrogate(rest.charCodeAt(limit - 1)) ? limit - 1 : limit;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  pieces.push(rest);
  return pieces.filter((piece) => piece.trim() !== "");
}
