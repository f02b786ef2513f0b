/**
 * Run ids: `run-` + the UTC time with microseconds, e.g. `run-20260821T145151123456Z`.
 *
 * @module
 */

let last = "";
let lastMs = Number.NaN;
let counter = 0;

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

function format(now: Date): string {
  return `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}T${
    pad(now.getUTCHours())
  }${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}${pad(now.getUTCMilliseconds(), 3)}`;
}

/**
 * A new run id for `now` (default: the current time). Ids made within one millisecond are told
 * apart by a counter in the sub-millisecond digits.
 */
export function newRunId(now?: Date): string {
  // The time text is formatted once per millisecond (no Date made for the current time).
  const ms = now === undefined ? Date.now() : now.getTime();
  const base = ms === lastMs ? last : format(now ?? new Date(ms));
  counter = base === last ? (counter + 1) % 1000 : 0;
  last = base;
  lastMs = ms;
  // Joined: one flat string (entry metas keep it; a concatenation this long is a rope).
  return ["run-", base, pad(counter, 3), "Z"].join("");
}
