/**
 * The check of a required name or path argument: {@link nonEmptyString}.
 *
 * @module
 */

/**
 * `value` when it is a non-empty string, else a TypeError `<message>, got <value as JSON>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nonEmptyString } from "./non_empty.ts";
 * assert.equal(nonEmptyString("a.db", "Cannot open: path must be a non-empty string"), "a.db");
 * assert.throws(() => nonEmptyString("", "Cannot open: path must be a non-empty string"), {
 *   message: 'Cannot open: path must be a non-empty string, got ""',
 * });
 * ```
 */
export function nonEmptyString(value: unknown, message: string): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(`${message}, got ${JSON.stringify(value)}`);
  }
  return value;
}
