/**
 * Run ids: `run-` + the UTC time with microseconds, e.g. `run-20260821T145151123456Z`.
 *
 * @module
 */
import { pad, utcCompactSecondText } from "../_internal/utc_text.ts";

let last = "";
let lastMs = Number.NaN;
let counter = 0;

function format(ms: number): string {
  const second = Math.floor(ms / 1000);
  return utcCompactSecondText(second) + pad(ms - second * 1000, 3);
}

/**
 * A new run id for `now` (default: the current time). Ids made within one millisecond are told
 * apart by a counter in the sub-millisecond digits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newRunId } from "@bub/core/agent";
 * assert.match(newRunId(new Date(0)), /^run-19700101T000000/);
 * assert.notEqual(newRunId(), newRunId()); // unique within the process
 * ```
 */
export function newRunId(now?: Date): string {
  // The time text is formatted once per millisecond.
  const ms = now === undefined ? Date.now() : now.getTime();
  const base = ms === lastMs ? last : format(ms);
  counter = base === last ? (counter + 1) % 1000 : 0;
  last = base;
  lastMs = ms;
  // Joined: one flat string (entry metas keep it; a concatenation this long is a rope).
  return ["run-", base, pad(counter, 3), "Z"].join("");
}
