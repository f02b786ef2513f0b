/**
 * The one place that turns UTC times into text and back: the current second's
 * `YYYY-MM-DDTHH:MM:SS`, kept so that the many dates written within one second (tape entries,
 * step events, run ids) format it once, and the ISO-8601 dates with microseconds that tape
 * entries store, parsed and printed the way Python's `datetime.isoformat` / `fromisoformat` do.
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

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,6}))?)?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2}(?::?\d{2}(?:\.\d{1,6})?)?)?)?$/;
const DAY_US = 86_400_000_000;

function _utcMicros(
  y: number,
  mo: number,
  d: number,
  h = 0,
  mi = 0,
  s = 0,
  us = 0,
): number | null {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) {
    return null;
  }
  return ms * 1000 + us;
}

function _offsetMicros(text: string): number {
  if (text === "Z" || text === "z") return 0;
  const sign = text.startsWith("-") ? -1 : 1;
  const digits = text.slice(1).replaceAll(":", "");
  const h = Number(digits.slice(0, 2));
  const m = Number(digits.slice(2, 4) || "0");
  const s = Number(digits.slice(4, 6) || "0");
  return sign * ((h * 60 + m) * 60 + s) * 1_000_000;
}

/**
 * Parses an ISO date-time to microseconds since the epoch (naive values are UTC), or null when
 * it is not one. A bare date is midnight.
 */
export function parseIsoMicros(text: string): number | null {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return null;
  const us = m[7] ? Number(m[7].padEnd(6, "0")) : 0;
  const base = _utcMicros(
    Number(m[1]),
    Number(m[2]),
    Number(m[3]),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
    us,
  );
  if (base === null) return null;
  return m[8] ? base - _offsetMicros(m[8]) : base;
}

/**
 * Parses a query boundary: a bare valid date (no `T` or space) is the start of that day
 * (`end` false) or its last microsecond (`end` true); anything else is a datetime.
 */
export function parseBoundaryMicros(value: string | Date, end: boolean): number | null {
  if (value instanceof Date) {
    const ms = value.getTime();
    return Number.isNaN(ms) ? null : ms * 1000;
  }
  const text = value.trim();
  const date = DATE_ONLY.exec(text);
  if (date && !text.includes("T") && !text.includes(" ")) {
    const start = _utcMicros(Number(date[1]), Number(date[2]), Number(date[3]));
    if (start === null) return null;
    return end ? start + DAY_US - 1 : start;
  }
  return parseIsoMicros(text);
}

/**
 * Python's `datetime.isoformat()` of a UTC instant given in microseconds:
 * `YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00` (the fraction only when non-zero).
 */
export function isoFromMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const us = micros - ms * 1000;
  const second = Math.floor(ms / 1000);
  const fraction = (ms - second * 1000) * 1000 + us;
  // Joined, not concatenated: one flat string (a tape keeps one per distinct instant; V8 and
  // JavaScriptCore keep a concatenation of this length as a rope, and its flat copy beside it
  // once it is read).
  return fraction
    ? [utcSecondText(second), ".", pad(fraction, 6), "+00:00"].join("")
    : [utcSecondText(second), "+00:00"].join("");
}

// The last instant formatted: entries of one step are mostly written within one millisecond.
let lastMs = Number.NaN;
let lastIso = "";

/** The ISO form of `date` (default now) as tape entries store it. */
export function isoNow(date?: Date): string {
  const ms = date === undefined ? Date.now() : date.getTime();
  if (ms !== lastMs) {
    lastIso = isoFromMicros(ms * 1000);
    lastMs = ms;
  }
  return lastIso;
}

/** True when `text` is what {@link isoNow} last returned (a valid date, no need to parse it). */
export function isLastIsoNow(text: string): boolean {
  return text === lastIso && lastIso !== "";
}

/** A UTC `YYYYMMDDTHHMMSSZ` stamp (archive file names). */
export function utcStamp(date: Date = new Date()): string {
  return `${utcCompactSecondText(Math.floor(date.getTime() / 1000))}Z`;
}
