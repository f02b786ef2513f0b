/**
 * Listing a directory that may be missing or unreadable, for best-effort sweeps:
 * {@link readdirQuiet}.
 *
 * @module
 */
import { readdirSync } from "node:fs";

/**
 * The names in `dir` (`readdirSync`), or none when it cannot be read (missing, not a directory,
 * no permission).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readdirQuiet } from "./read_dir.ts";
 * assert.deepEqual(readdirQuiet("/no/such/dir"), []);
 * ```
 */
export function readdirQuiet(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
