/**
 * Recognising context-length errors, which the agent answers with one automatic handoff.
 *
 * @module
 */

const CONTEXT_LENGTH =
  /context.{0,20}(?:length|window)|maximum.{0,20}context|token.{0,10}limit|prompt.{0,10}too long|tokens? > \d+ maximum/i;

/**
 * True when `text` (an error's string form) says the model's context is too long.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isContextLengthError } from "@bub/core/agent";
 * assert.ok(isContextLengthError("maximum context length is 8192"));
 * assert.ok(!isContextLengthError("rate limit reached"));
 * ```
 */
export function isContextLengthError(text: string): boolean {
  return CONTEXT_LENGTH.test(text);
}
