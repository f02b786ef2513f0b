/**
 * Times as a person reads them (pure): a tape date (ISO 8601 with an offset) shown in the
 * browser's own time zone — `11:45:56` today, `yesterday 11:45`, `Mon 11:45` within the week,
 * else `2026-11-20 11:45` — with the ISO text kept for the element's tooltip.
 *
 * @module
 */

const DAY_MS = 86_400_000;
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const two = (n: number): string => String(n).padStart(2, "0");

/** Midnight of `date`'s local day, in ms. */
function dayStart(date: Date): number {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/**
 * `iso` in local time relative to `now` (both read in the runtime's time zone); the text
 * unchanged when it is not a date.
 */
export function localTime(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const hm = `${two(date.getHours())}:${two(date.getMinutes())}`;
  const days = Math.round((dayStart(now) - dayStart(date)) / DAY_MS);
  if (days === 0) return `${hm}:${two(date.getSeconds())}`;
  if (days === 1) return `yesterday ${hm}`;
  if (days > 1 && days < 7) return `${WEEKDAYS[date.getDay()]} ${hm}`;
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${hm}`;
}
