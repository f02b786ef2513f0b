/**
 * Small bounded caches of values derived from files, revalidated by a cheap `stat` on every use
 * (device, inode, size, mtime and ctime), so an edit, a replacement or a removal is always seen.
 *
 * @module
 */
import { type Stats, statSync } from "node:fs";

/** `statSync` that returns null instead of throwing (missing path, no permission, ...). */
export function statQuiet(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/**
 * How recent a change must be for its stamp to be untrusted: file times are coarse (a kernel tick
 * on Linux, up to 2 s on some filesystems), so a second change that soon can leave every field
 * of the stamp as it was.
 */
const RACY_MS = 2000;
let racyStamps = 0;

/**
 * A string that changes whenever the file or directory behind `stats` changes. While its newest
 * time is under 2 s old the stamp is unique (it matches no cached value), so a change made within
 * the same clock tick as the last one is never missed — as git treats "racily clean" files.
 */
export function stampOf(stats: Stats, now: number = Date.now()): string {
  const stamp = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  const newest = Math.max(stats.mtimeMs, stats.ctimeMs);
  return now - newest < RACY_MS ? `${stamp}:racy${++racyStamps}` : stamp;
}

/** A map from a key to a value and the stamp it was derived under, holding at most `limit` keys. */
export class StampCache<T> {
  #limit: number;
  #entries = new Map<string, { stamp: string; value: T }>();

  /**
   * Creates an empty cache.
   *
   * @param limit the most keys kept; the oldest is dropped first
   */
  constructor(limit = 256) {
    this.#limit = limit;
  }

  /** The value cached for `key` under exactly `stamp`, else undefined. */
  get(key: string, stamp: string): T | undefined {
    const entry = this.#entries.get(key);
    return entry !== undefined && entry.stamp === stamp ? entry.value : undefined;
  }

  /** Caches `value` for `key` under `stamp`. */
  set(key: string, stamp: string, value: T): void {
    this.#entries.delete(key);
    this.#entries.set(key, { stamp, value });
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}
