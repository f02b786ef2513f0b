/**
 * Reads a byte stream whole, up to a limit checked while it streams in: past the limit the stream
 * is cancelled and the caller's error is thrown, so an oversized body never sits in memory whole.
 *
 * @module
 */

/**
 * The bytes of `body` (empty for null), or `tooLarge()` thrown as soon as more than `limit` bytes
 * arrived (the stream is cancelled first).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBounded } from "./bounded_read.ts";
 * const bytes = await readBounded(new Response("hello").body, 10, () => new Error("too large"));
 * assert.ok(bytes.byteLength === 5);
 * ```
 */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
