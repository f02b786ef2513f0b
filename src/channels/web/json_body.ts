/**
 * Reads a request's JSON body with a byte limit checked while it streams in: a body that grows
 * past the limit (announced by `Content-Length` or sent chunked) stops being read at the limit,
 * so an oversized upload never sits in memory whole.
 *
 * @module
 */
import { readBounded } from "../../_internal/bounded_read.ts";
import { BubError } from "../../kernel/errors.ts";
import { tooLarge } from "./request_gate.ts";

/**
 * The body of `request` parsed as JSON, read up to `limit` bytes.
 *
 * @throws {BubError} `invalid_input` with `details.status` 413 when the body is larger than
 * `limit`, or 400 when it is not UTF-8 JSON
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readJsonBody } from "./json_body.ts";
 * const request = new Request("http://h/", { method: "POST", body: '{"a":1}' });
 * assert.ok((await readJsonBody(request, 1024) as { a: number }).a === 1);
 * ```
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const length = request.headers.get("content-length");
  if (length !== null && /^\d+$/.test(length.trim()) && Number(length) > limit) {
    throw tooLargeError(limit);
  }
  const bytes = await readBounded(request.body, limit, () => tooLargeError(limit));
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    throw new BubError(
      "invalid_input",
      `The request body is not JSON: ${(error as Error).message}`,
      { status: 400 },
    );
  }
}

function tooLargeError(limit: number): BubError {
  return new BubError("invalid_input", tooLarge(limit).message, { status: 413 });
}
