/**
 * Run ids: `run-` + the UTC time with microseconds, e.g. `run-20260821T145151123456Z`.
 *
 * @module
 */

let last = "";
let counter = 0;

/**
 * A new run id for `now` (default: the current time). Ids made within one millisecond are told
 * apart by a counter in the sub-millisecond digits.
 */
export function newRunId(now: Date = new Date()): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const base = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}T${
    pad(now.getUTCHours())
  }${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}${pad(now.getUTCMilliseconds(), 3)}`;
  counter = base === last ? (counter + 1) % 1000 : 0;
  last = base;
  return `run-${base}${pad(counter, 3)}Z`;
}
