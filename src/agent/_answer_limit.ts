/**
 * The size limit of one model answer (`max_answer_bytes`): the UTF-8 bytes of the text,
 * reasoning and tool-call arguments a provider streams, counted piece by piece as they arrive
 * (never by measuring what was joined), and the bytes of one SSE event still waiting for its
 * end (`withEventLimit` in `providers/_request_body.ts`). Past the limit the call fails with one error, whichever client read the stream: the
 * direct chat-completions client, the AI SDK providers (Responses, Anthropic, ...) and the model
 * runner (for any other client) all count with {@link AnswerLimit}.
 *
 * @module
 */
import { sizeText } from "../_internal/size_text.ts";
import { BubError } from "../kernel/errors.ts";

/** The default limit: 8 MiB. */
export const DEFAULT_MAX_ANSWER_BYTES: number = 8 * 1024 * 1024;

/** The smallest limit the setting accepts. */
export const MIN_MAX_ANSWER_BYTES = 1024;

/**
 * The error of an answer past `maxBytes`: kind `provider`, details `max_answer_bytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerTooLarge } from "./_answer_limit.ts";
 * assert.ok(answerTooLarge(8 * 1024 * 1024).message.startsWith("Model answer exceeded 8 MiB"));
 * ```
 */
export function answerTooLarge(maxBytes: number): BubError {
  return new BubError(
    "provider",
    `Model answer exceeded ${
      sizeText(maxBytes)
    } (max_answer_bytes, BUB_MAX_ANSWER_BYTES); the stream was stopped`,
    { max_answer_bytes: maxBytes },
  );
}

/** The UTF-8 length of `text` (a lone surrogate counts as the 3 bytes of its replacement). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    // 2 bytes below U+0800; a surrogate half is half of a 4-byte pair; else 3 bytes.
    bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

/**
 * The answer budget of one call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AnswerLimit } from "./_answer_limit.ts";
 * const limit = new AnswerLimit(1024);
 * limit.add("hello");
 * assert.ok(limit.bytes === 5);
 * ```
 */
export class AnswerLimit {
  /** The limit in bytes. */
  readonly maxBytes: number;
  /** Bytes counted so far. */
  bytes = 0;

  /**
   * Creates the budget.
   *
   * @param maxBytes the limit in bytes (> 0)
   */
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /**
   * Counts one streamed piece.
   *
   * @throws BubError (provider) {@link answerTooLarge} once the count passes the limit
   */
  add(piece: string): void {
    this.bytes += utf8Length(piece);
    if (this.bytes > this.maxBytes) throw answerTooLarge(this.maxBytes);
  }

  /**
   * Checks the size of something still waiting for its end (a line or event not complete yet).
   *
   * @throws BubError (provider) {@link answerTooLarge} when `pending` is past the limit
   */
  checkPending(pending: number): void {
    if (pending > this.maxBytes) throw answerTooLarge(this.maxBytes);
  }
}

/** A budget of `maxBytes`, or null when there is no limit. */
export function answerLimit(maxBytes: number | null | undefined): AnswerLimit | null {
  return maxBytes == null ? null : new AnswerLimit(maxBytes);
}

/**
 * Checks a model limit given to the runner: null or undefined (the default), or an integer of at
 * least {@link MIN_MAX_ANSWER_BYTES}.
 *
 * @throws BubError (config) for anything else
 */
export function checkMaxAnswerBytes(value: number | null | undefined): number {
  if (value == null) return DEFAULT_MAX_ANSWER_BYTES;
  if (!Number.isInteger(value) || value < MIN_MAX_ANSWER_BYTES) {
    throw new BubError(
      "config",
      `maxAnswerBytes must be an integer of at least ${MIN_MAX_ANSWER_BYTES}, got ${
        JSON.stringify(value)
      }`,
      { key: "maxAnswerBytes", value },
    );
  }
  return value;
}
