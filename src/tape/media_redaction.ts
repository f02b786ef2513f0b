/**
 * Media never persists: a turn's tape keeps only the text parts of a message's list `content` (or
 * of an event's list `prompt`); images and other media parts are dropped when the fork writes them.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";

function _textOnly(parts: unknown[]): unknown[] {
  return parts.filter((part) => isRecord(part) && part.type === "text");
}

/**
 * Keeps only the text parts of a list `content` (else of a list `prompt`): media never persists.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactPayload } from "@bub/core/tape";
 * const text = { type: "text", text: "What is this?" };
 * const image = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };
 * assert.deepEqual(redactPayload({ role: "user", content: [text, image] }).content, [text]);
 * ```
 */
export function redactPayload(payload: Record<string, unknown>): Record<string, unknown> {
  if ("content" in payload) {
    return Array.isArray(payload.content)
      ? { ...payload, content: _textOnly(payload.content) }
      : payload;
  }
  if (Array.isArray(payload.prompt)) return { ...payload, prompt: _textOnly(payload.prompt) };
  return payload;
}
