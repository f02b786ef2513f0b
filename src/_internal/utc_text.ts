/**
 * The one place that formats UTC times as text: the current second's `YYYY-MM-DDTHH:MM:SS`,
 * kept so that the many dates written within one second (tape entries, step events, run ids)
 * format it once, and the zero padding they share.
 *
 * @module
 */

/** `n` in decimal, zero-padded to `width` digits. */
export function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

// The last second formatted: the dates of a turn mostly fall within one second.
let lastSecond = Number.NaN;
let lastSecondText = "";

/**
 * `YYYY-MM-DDTHH:MM:SS` of a UTC second since the epoch (what `toISOString` begins with).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.ok(utcSecondText(0) === "1970-01-01T00:00:00");
 * ```
 */
export function utcSecondText(second: number): string {
  if (second !== lastSecond) {
    const d = new Date(second * 1000);
    lastSecondText = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${
      pad(d.getUTCDate())
    }T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    lastSecond = second;
  }
  return lastSecondText;
}

/**
 * `YYYYMMDDTHHMMSS` of a UTC second since the epoch ({@link utcSecondText} without separators).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.ok(utcCompactSecondText(0) === "19700101T000000");
 * ```
 */
export function utcCompactSecondText(second: number): string {
  return utcSecondText(second).replaceAll("-", "").replaceAll(":", "");
}
