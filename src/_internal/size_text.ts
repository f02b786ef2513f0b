/**
 * A size in bytes as people write it in settings and limits: `8 MiB`, `64 KiB`, `1,500 bytes`.
 *
 * @module
 */

/**
 * `bytes` in MiB or KiB when it is a whole number of them, else in bytes with thousands commas.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sizeText } from "./size_text.ts";
 * assert.ok(sizeText(8 * 1024 * 1024) === "8 MiB");
 * assert.ok(sizeText(1500) === "1,500 bytes");
 * ```
 */
export function sizeText(bytes: number): string {
  if (bytes > 0 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes > 0 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString("en-US")} bytes`;
}
