/**
 * The per-tape caches of the file tape store: the parsed lines of a byte range of each file,
 * caught up incrementally, least recently used dropped first.
 *
 * @module
 */
import type { QuerySpec } from "../store/_evaluate.ts";
import { readFdAt } from "./_fd.ts";
import { parseCompleteLines } from "./_jsonl.ts";
import { coversQuery, findLastAnchor, TAIL_BLOCK, tailTarget } from "./_tail_scan.ts";
import type { TapeEntry } from "../entry.ts";

/**
 * The parsed lines of `[base, offset)` of a tape file. `base` is 0 after a full read; a tail read
 * starts it at an anchor line (see `coversQuery` for what such a cache answers).
 */
export interface FileCache {
  /** Byte offset of the first cached line. */
  base: number;
  /** Byte offset just after the last complete line read. */
  offset: number;
  /** Inode of the file read (a replaced file is read again). */
  ino: number;
  /** Valid entries of the range, in file order. */
  entries: TapeEntry[];
  /** Positions in `entries` of the anchors. */
  anchors: number[];
  /** The newest `event` entry of the range by payload `name` (what `latestEvents` asks). */
  events: Map<string, TapeEntry>;
}

/**
 * Parsed tapes kept in memory, least recently used dropped first, within a budget of the file
 * bytes they hold (parsed, turn entries take about 1.2 times that on the heap) and of their
 * count: a long-running gateway touches many tapes, each of its live sessions keeps its cache
 * (a dropped tape is read and parsed again from its file on its next turn, ~0.5 ms for a tape of
 * a few turns), and the many small tapes of a busy gateway fit where a few long ones do.
 */
const CACHED_BYTES = 16 * 1024 * 1024;
/** At most this many cached tapes, however small (each holds a few objects besides its entries). */
const CACHED_TAPES = 4096;

/** An empty full cache (a missing file). */
export function emptyCache(): FileCache {
  return { base: 0, offset: 0, ino: 0, entries: [], anchors: [], events: new Map() };
}

/** Adds one entry to the cache (anchor positions and the newest event of each name too). */
export function pushEntry(cache: FileCache, entry: TapeEntry): void {
  if (entry.kind === "anchor") cache.anchors.push(cache.entries.length);
  else if (entry.kind === "event" && typeof entry.payload.name === "string") {
    cache.events.set(entry.payload.name, entry);
  }
  cache.entries.push(entry);
}

/** Adds the complete lines of `bytes` (read at `cache.offset`) to the cache. */
export function absorb(cache: FileCache, bytes: Uint8Array): void {
  const { entries, consumed } = parseCompleteLines(bytes);
  for (const entry of entries) pushEntry(cache, entry);
  cache.offset += consumed;
}

/** Adds entries just written at `cache.offset` as `bytes` (their lines) to the cache. */
export function absorbWritten(
  cache: FileCache,
  entries: readonly TapeEntry[],
  bytes: number,
): void {
  for (const entry of entries) pushEntry(cache, entry);
  cache.offset += bytes;
}

/**
 * The newest events of `wanted` names indexed by a cache that holds the end of a file of `size`
 * bytes and inode `ino`, and where the cache starts (earlier events are in the file before it);
 * null when the cache does not hold the file's end.
 */
export function indexedEvents(
  cache: FileCache | undefined,
  wanted: ReadonlySet<string>,
  size: number,
  ino: number,
): { found: Map<string, TapeEntry>; end: number } | null {
  if (!cache || cache.ino !== (ino || 0) || cache.offset !== size) return null;
  const found = new Map<string, TapeEntry>();
  for (const name of wanted) {
    const entry = cache.events.get(name);
    if (entry) found.set(name, entry);
  }
  return { found, end: cache.base };
}

/**
 * The caches of one store, by tape name, in least-recently-used order, within the budget above
 * (the most recently used one is kept even when it alone is over it).
 */
export class FileCaches {
  #caches = new Map<string, FileCache>();
  /** The file bytes each cache held when last counted (`offset - base`), and their sum. */
  #counted = new Map<string, number>();
  #bytes = 0;
  readonly #maxBytes: number;
  readonly #maxTapes: number;

  /** @param budget the bytes and tapes kept at most (tests pass small ones) */
  constructor(budget: { bytes?: number; tapes?: number } = {}) {
    this.#maxBytes = budget.bytes ?? CACHED_BYTES;
    this.#maxTapes = budget.tapes ?? CACHED_TAPES;
  }

  /** The file bytes the caches hold, as last counted. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The number of cached tapes. */
  get size(): number {
    return this.#caches.size;
  }

  /** The cache of `tape`, marked most recently used. */
  get(tape: string): FileCache | undefined {
    const cache = this.#caches.get(tape);
    if (cache) this.set(tape, cache);
    return cache;
  }

  /** True when `tape` has a cache (its use order unchanged). */
  has(tape: string): boolean {
    return this.#caches.has(tape);
  }

  /** Stores the cache of `tape` as the most recently used; drops the oldest beyond the limit. */
  set(tape: string, cache: FileCache): void {
    this.#caches.delete(tape);
    this.#caches.set(tape, cache);
    this.#count(tape, cache);
  }

  /**
   * Counts what `cache`, the cache of `tape`, holds now (call it after adding entries to it
   * outside {@link catchUp}, e.g. {@link absorbWritten}); dropping the least recently used caches
   * beyond the budget. Nothing when `tape` has another cache now (dropped or replaced meanwhile).
   */
  grew(tape: string, cache: FileCache): void {
    if (this.#caches.get(tape) === cache) this.#count(tape, cache);
  }

  #count(tape: string, cache: FileCache): void {
    const bytes = cache.offset - cache.base;
    this.#bytes += bytes - (this.#counted.get(tape) ?? 0);
    this.#counted.set(tape, bytes);
    while (
      (this.#bytes > this.#maxBytes || this.#caches.size > this.#maxTapes) &&
      this.#caches.size > 1
    ) {
      const oldest = this.#caches.keys().next().value;
      if (oldest === undefined) break;
      this.delete(oldest);
    }
  }

  /** Forgets the cache of `tape`. */
  delete(tape: string): void {
    this.#caches.delete(tape);
    this.#bytes -= this.#counted.get(tape) ?? 0;
    this.#counted.delete(tape);
  }

  /** Forgets every cache. */
  clear(): void {
    this.#caches.clear();
    this.#counted.clear();
    this.#bytes = 0;
  }

  /**
   * Brings the cache of `tape` up to `size` bytes of the open file `fd`. A file replaced or
   * truncated by another process is read again from scratch, as is one whose cache starts too
   * late for `query`. A new cache of a long file starts at its last anchor (the one `query`
   * starts from), so the appends and anchor queries of a turn never parse what lies before it;
   * without one the whole file is read. `query` is null for an append, which only needs the
   * last entry's id (the last anchor line or a later one holds it).
   */
  async catchUp(
    tape: string,
    fd: number,
    size: number,
    ino: number,
    query: QuerySpec | null,
  ): Promise<FileCache> {
    let cache = this.get(tape);
    if (cache && (cache.ino !== ino || size < cache.offset)) cache = undefined;
    if (cache && query && !coversQuery(cache, query)) cache = undefined;
    if (!cache) {
      const target = query ? tailTarget(query) : null;
      const base = target !== undefined && size > TAIL_BLOCK
        ? await findLastAnchor(fd, size, target) ?? 0
        : 0;
      cache = { base, offset: base, ino, entries: [], anchors: [], events: new Map() };
      this.set(tape, cache);
    }
    if (size > cache.offset) {
      const bytes = new Uint8Array(size - cache.offset);
      let read = 0;
      while (read < bytes.length) {
        const bytesRead = await readFdAt(fd, bytes, read, bytes.length - read, cache.offset + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      absorb(cache, bytes.subarray(0, read));
      this.grew(tape, cache);
    }
    return cache;
  }
}
