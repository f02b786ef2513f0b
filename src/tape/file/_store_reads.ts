/**
 * The read path of `FileTapeStore` (see `../file_store.ts`): catching a tape's cache up with its
 * file, and the reads that avoid it: the first entries from the head of the file, the newest
 * entry and the newest events from its end. A missing file (in a directory that exists) has no
 * entries and costs one `stat`.
 *
 * @module
 */
import type { Stats } from "node:fs";
import type { TapeEntry } from "../entry.ts";
import type { TapeQuery } from "../query.ts";
import type { QuerySpec } from "../store/_evaluate.ts";
import { emptyCache, type FileCache, indexedEvents } from "./_cache.ts";
import { readHead } from "./_head_scan.ts";
import { statTape, withOpenFile } from "./_read.ts";
import type { FileStoreCore } from "./_store_core.ts";
import { coversQuery, findLastEntry, findLastEvents } from "./_tail_scan.ts";

/** The cache of `tape`, caught up with its file as far as `query` needs (call under its mutex). */
export async function refreshCache(
  core: FileStoreCore,
  tape: string,
  query: QuerySpec,
): Promise<FileCache> {
  const path = core.pathOf(tape);
  // Fast path: a missing file, or one that has not changed since it was last read, needs no
  // open (reads happen several times per turn).
  let current;
  try {
    current = statTape(path, !core.cache.has(tape));
  } catch (error) {
    core.fail("read", tape, error);
  }
  if (current === undefined && core.directoryExists()) {
    core.cache.delete(tape);
    return emptyCache();
  }
  const known = core.cache.get(tape);
  if (
    current !== undefined && known && known.ino === (Number(current.ino ?? 0) || 0) &&
    known.offset === current.size && coversQuery(known, query)
  ) {
    return known;
  }
  let cache: FileCache | null;
  try {
    cache = await withOpenFile(
      path,
      (fd, size, ino) => core.cache.catchUp(tape, fd, size, ino, query),
    );
  } catch (error) {
    core.fail("read", tape, error);
  }
  if (cache === null) core.cache.delete(tape);
  return cache ?? emptyCache();
}

/**
 * Answers a kinds-and-limit query from the start of the file (first entries of those kinds),
 * leaving the cache alone; null when the cache holds the whole file or the file is missing
 * (the ordinary path answers then).
 */
export function readHeadQuery(core: FileStoreCore, query: TapeQuery): Promise<TapeEntry[] | null> {
  if (core.cache.get(query.tape)?.base === 0) return Promise.resolve(null);
  // A missing file has no entries (one `stat`, no failed open); with a cache left of it (another
  // process reset the tape) the ordinary path drops that cache.
  if (statQuiet(core, query.tape) === undefined) {
    const gone = core.cache.get(query.tape) === undefined && core.directoryExists();
    return Promise.resolve(gone ? [] : null);
  }
  return withTapeFile(core, query.tape, (fd, size) => readHead(fd, size, query));
}

/**
 * The newest event of each of `names`: from the cache when it holds the end of the file, and
 * by reading the file backwards before it, so the history before those events is not parsed.
 */
export async function readLatestEvents(
  core: FileStoreCore,
  tape: string,
  names: readonly string[],
): Promise<TapeEntry[]> {
  const wanted = new Set(names);
  if (wanted.size === 0) return [];
  // The cache indexes the newest event of each name: no scan of its entries, and no open when
  // it holds the end of the file and answers for every name (or holds the whole file).
  const path = core.pathOf(tape);
  let current: Stats | undefined | null;
  try {
    current = statTape(path, !core.cache.has(tape));
  } catch {
    current = null; // The read below reports it.
  }
  if (current === undefined && core.directoryExists()) return [];
  const cached = current &&
    indexedEvents(core.cache.get(tape), wanted, current.size, Number(current.ino ?? 0));
  if (cached && (cached.found.size === wanted.size || cached.end === 0)) {
    return [...cached.found.values()].sort((a, b) => a.id - b.id);
  }
  const found = await withTapeFile(core, tape, async (fd, size, ino) => {
    const { found, end } = indexedEvents(core.cache.get(tape), wanted, size, ino) ??
      { found: new Map<string, TapeEntry>(), end: size };
    if (found.size < wanted.size && end > 0) await findLastEvents(fd, end, wanted, found);
    return [...found.values()].sort((a, b) => a.id - b.id);
  });
  return found ?? [];
}

/** The newest entry of `tape`, read from the end of its file. */
export async function readLastEntry(core: FileStoreCore, tape: string): Promise<TapeEntry | null> {
  // A cache holding the end of the file has its last entry (a missing file has none): no open.
  const current = statQuiet(core, tape);
  if (current === undefined && core.directoryExists()) return null;
  const known = current && core.cache.get(tape);
  if (known && known.ino === current.ino && known.offset === current.size) {
    const last = known.entries[known.entries.length - 1];
    if (last || known.base === 0) return last ?? null;
  }
  return await withTapeFile(core, tape, (fd, size) => findLastEntry(fd, size)) ?? null;
}

/** The size and inode of `tape`'s file: undefined when missing, null when `stat` fails (a read reports it). */
function statQuiet(
  core: FileStoreCore,
  tape: string,
): { size: number; ino: number } | undefined | null {
  try {
    const stats = statTape(core.pathOf(tape), !core.cache.has(tape));
    return stats && { size: stats.size, ino: Number(stats.ino ?? 0) || 0 };
  } catch {
    return null;
  }
}

/** Runs `fn` on the open file of `tape` under the tape's mutex; null when it is missing. */
function withTapeFile<T>(
  core: FileStoreCore,
  tape: string,
  fn: (fd: number, size: number, ino: number) => Promise<T>,
): Promise<T | null> {
  const path = core.pathOf(tape);
  return core.mutex.run(tape, async () => {
    try {
      return await withOpenFile(path, fn);
    } catch (error) {
      core.fail("read", tape, error);
    }
  });
}
