/**
 * `FileTapeStore`: one JSONL file per tape (Bub's format, §5.6), safe for several processes.
 *
 * @module
 */
import { accessSync, constants, type Stats, statSync } from "node:fs";
import { renameSync, unlinkSync } from "node:fs";
import { mkdir, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { BubError } from "../kernel/errors.ts";
import { evaluateQuery, type QuerySpec } from "./store/_evaluate.ts";
import {
  appendBatch,
  type BatchMerge,
  isFullDisk,
  prepareBatch,
  type PreparedEntry,
} from "./file/_append.ts";
import { withFileLock } from "./file/_lock.ts";
import { emptyCache, type FileCache, FileCaches, indexedEvents } from "./file/_cache.ts";
import { errorCode, statTape, withOpenFile } from "./file/_read.ts";
import { LockTemplate } from "./file/_lock_template.ts";
import { SpareFile } from "./file/_spare_file.ts";
import { pruneStrayFiles } from "./file/_stray_files.ts";
import { KeyedMutex } from "./store/_mutex.ts";
import { OpenFiles } from "./file/_open_files.ts";
import { searchPass } from "./store/_search.ts";
import { coversQuery, findLastEntry, findLastEvents } from "./file/_tail_scan.ts";
import { isHeadQuery, readHead } from "./file/_head_scan.ts";
import { type TapeEntry, validateTapeName } from "./entry.ts";
import type { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";
import { provideLiveView } from "./store/_live_view.ts";
import {
  FileJournals,
  finishMerge,
  journalPath,
  mergingPath,
  readJournal,
  readJournals,
} from "./file/_journal.ts";
import { type ForkJournal, type PendingFork, validateForkId } from "./fork_journal.ts";
import { retrySecondsOption, StoreRetry } from "./store/_retry.ts";

/**
 * Options of {@link FileTapeStore}.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { FileTapeStore } from "@bub/core";
 * import type { FileTapeStoreOptions } from "@bub/core/tape";
 * const options: FileTapeStoreOptions = { durable: false, lockTimeoutMs: 5_000 };
 * await using store = new FileTapeStore(mkdtempSync(join(tmpdir(), "tapes-")), options);
 * ```
 */
export interface FileTapeStoreOptions {
  /** Flush every append to the disk before it resolves (default true). */
  durable?: boolean;
  /** How long an append waits for another process's lock (default 30 000 ms). */
  lockTimeoutMs?: number;
  /**
   * How long an append retries while the disk is full (or over quota), in seconds, with
   * backoff; then it fails with a `temporary` BubError (`details.reason === "store_unavailable"`)
   * naming the file. A failed write is cut back off the file, so the tape never holds part of a
   * batch. Default 0 (fail at once).
   */
  retrySeconds?: number;
}

/**
 * Tapes as `<directory>/<tape>.jsonl` files, read incrementally and cached per file. The first
 * anchor query or append on a long tape reads it from its last anchor on (found by scanning the
 * file backwards), so its cost follows the entries after that anchor, not the tape's length;
 * a query about earlier entries reads the whole file once.
 *
 * Appends take a per-tape lock file (`<tape>.jsonl.lock`, a hard link of the store's hidden
 * `.bub-lock.<random>` holder file, see `file/_lock_template.ts`), catch up with the file, assign the
 * next id and write, so concurrent processes get unique, gapless, increasing ids; the flush runs
 * as the lock is released, and an append resolves once it is done. A torn last line left by a
 * killed writer is skipped and terminated before the next append.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileTapeStore, TapeQuery } from "@bub/core";
 * import { messageEntry } from "@bub/core/tape";
 * const dir = await Deno.makeTempDir();
 * await using store = new FileTapeStore(dir);
 * await store.append("a__b", messageEntry({ role: "user", content: "hi" }));
 * const [entry] = await new TapeQuery("a__b", store).all();
 * assert.ok(entry?.id === 1);
 * ```
 */
export class FileTapeStore implements TapeStore, ForkJournal, AsyncDisposable {
  /** The directory holding the tape files. */
  readonly directory: string;
  #durable: boolean;
  #lockTimeoutMs: number;
  #cache = new FileCaches();
  #files = new OpenFiles();
  #mutex = new KeyedMutex();
  #ready: Promise<void> | null = null;
  #directorySeen = false;
  #template: LockTemplate;
  #spare: SpareFile;
  #stop = new AbortController();
  #retry: StoreRetry;
  #journals: FileJournals;

  /**
   * Creates the object.
   *
   * @param directory created on first write when missing
   * @param options durability and lock waiting
   */
  constructor(directory: string, options: FileTapeStoreOptions = {}) {
    if (typeof directory !== "string" || directory === "") {
      throw new TypeError(
        `Cannot create FileTapeStore: directory must be a non-empty path, got ${
          JSON.stringify(directory)
        }`,
      );
    }
    this.directory = directory;
    this.#durable = options.durable ?? true;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.#template = new LockTemplate(directory);
    this.#spare = new SpareFile(directory);
    this.#journals = new FileJournals(this.#durable);
    this.#retry = new StoreRetry({
      kind: "file",
      name: JSON.stringify(directory),
      retrySeconds: retrySecondsOption("FileTapeStore", options.retrySeconds),
      // The write's own error (not a wrapped one): a failed flush is final.
      isTransient: isFullDisk,
      signal: this.#stop.signal,
    });
    // Incremental contexts read a tape's cache, caught up (see `store/_live_view.ts`).
    provideLiveView(
      this,
      (query) => this.#mutex.run(query.tape, () => this.#refresh(query.tape, query)),
    );
  }

  /** The file of `tape`. */
  pathOf(tape: string): string {
    validateTapeName(tape);
    return join(this.directory, `${tape}.jsonl`);
  }

  #fail(action: string, tape: string, error: unknown): never {
    if (BubError.isInstance(error) || error instanceof TypeError) throw error;
    throw new BubError(
      "unknown",
      `Cannot ${action} tape ${JSON.stringify(tape)} in ${JSON.stringify(this.directory)}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { tape, code: errorCode(error) ?? null },
      { cause: error },
    );
  }

  /** Sorted stems of `*.jsonl` files with exactly one `__` (no sidecars, no archives). */
  async listTapes(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return [];
      throw new BubError(
        "unknown",
        `Cannot list tapes in ${JSON.stringify(this.directory)}: ${(error as Error).message}`,
        null,
        { cause: error },
      );
    }
    return names
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => name.slice(0, -".jsonl".length))
      .filter((stem) => stem.split("__").length === 2)
      .sort();
  }

  /** Deletes the tape file and its cache. */
  async reset(tape: string): Promise<void> {
    const path = this.pathOf(tape);
    await this.#mutex.run(tape, async () => {
      try {
        await this.#ensureDirectory();
        await withFileLock(`${path}.lock`, async () => {
          this.#files.drop(tape);
          await unlink(path).catch((error) => {
            if (errorCode(error) !== "ENOENT") throw error;
          });
        }, {
          what: `tape ${JSON.stringify(tape)}`,
          timeoutMs: this.#lockTimeoutMs,
          template: this.#template,
        });
        this.#cache.delete(tape);
      } catch (error) {
        this.#fail("reset", tape, error);
      }
    });
  }

  /** Evaluates a query; a text query uses the newest-first search pass (§5.6). */
  async fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    if (isHeadQuery(query)) {
      const head = await this.#head(query);
      if (head !== null) return head;
    }
    const cache = await this.#mutex.run(query.tape, () => this.#refresh(query.tape, query));
    if (query.text) return await searchPass(evaluateQuery(cache, query, { limit: false }), query);
    return evaluateQuery(cache, query);
  }

  /**
   * The newest event of each of `names`: from the cache when it holds the end of the file, and
   * by reading the file backwards before it, so the history before those events is not parsed.
   */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    const wanted = new Set(names);
    if (wanted.size === 0) return [];
    // The cache indexes the newest event of each name: no scan of its entries, and no open when
    // it holds the end of the file and answers for every name (or holds the whole file).
    const path = this.pathOf(tape);
    let current: Stats | undefined | null;
    try {
      current = statTape(path, !this.#cache.has(tape));
    } catch {
      current = null; // The read below reports it.
    }
    if (current === undefined && this.#directoryExists()) return [];
    const cached = current &&
      indexedEvents(this.#cache.get(tape), wanted, current.size, Number(current.ino ?? 0));
    if (cached && (cached.found.size === wanted.size || cached.end === 0)) {
      return [...cached.found.values()].sort((a, b) => a.id - b.id);
    }
    const found = await this.#withFile(tape, async (fd, size, ino) => {
      const { found, end } = indexedEvents(this.#cache.get(tape), wanted, size, ino) ??
        { found: new Map<string, TapeEntry>(), end: size };
      if (found.size < wanted.size && end > 0) await findLastEvents(fd, end, wanted, found);
      return [...found.values()].sort((a, b) => a.id - b.id);
    });
    return found ?? [];
  }

  /** The newest entry of `tape`, read from the end of its file (see {@link TapeStore}). */
  async lastEntry(tape: string): Promise<TapeEntry | null> {
    // A cache holding the end of the file has its last entry (a missing file has none): no open.
    const current = this.#statQuiet(tape);
    if (current === undefined && this.#directoryExists()) return null;
    const known = current && this.#cache.get(tape);
    if (known && known.ino === current.ino && known.offset === current.size) {
      const last = known.entries[known.entries.length - 1];
      if (last || known.base === 0) return last ?? null;
    }
    return await this.#withFile(tape, (fd, size) => findLastEntry(fd, size)) ?? null;
  }

  /** The size and inode of `tape`'s file: undefined when missing, null when `stat` fails (a read reports it). */
  #statQuiet(tape: string): { size: number; ino: number } | undefined | null {
    try {
      const stats = statTape(this.pathOf(tape), !this.#cache.has(tape));
      return stats && { size: stats.size, ino: Number(stats.ino ?? 0) || 0 };
    } catch {
      return null;
    }
  }

  /** Runs `fn` on the open file of `tape` under the tape's mutex; null when it is missing. */
  #withFile<T>(
    tape: string,
    fn: (fd: number, size: number, ino: number) => Promise<T>,
  ): Promise<T | null> {
    const path = this.pathOf(tape);
    return this.#mutex.run(tape, async () => {
      try {
        return await withOpenFile(path, fn);
      } catch (error) {
        this.#fail("read", tape, error);
      }
    });
  }

  /** Appends one entry (committed, and flushed when durable, when this resolves). */
  async append(tape: string, entry: TapeEntry): Promise<void> {
    await this.appendMany(tape, [entry]);
  }

  /** Appends entries in order under one lock and one flush (the lock released as the flush runs). */
  async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
    const path = this.pathOf(tape);
    // Checked and copied (serialised once) before the lock, numbered as a new tape's entries;
    // renumbered under the lock when the tape has entries.
    const checked = prepareBatch(tape, entries);
    const what = `append to tape ${JSON.stringify(tape)} (${path})`;
    await this.#mutex.run(
      tape,
      () => this.#retry.run(what, () => this.#write(tape, path, checked)),
    );
  }

  /** Appends to the journal of `fork` (see `fork_journal.ts`); flushed when it resolves. */
  async journalAppend(tape: string, fork: string, entries: readonly TapeEntry[]): Promise<void> {
    validateForkId(fork);
    const journal = journalPath(this.pathOf(tape), fork);
    await this.#mutex.run(journal, async () => {
      try {
        await this.#ensureDirectory();
        await this.#journals.append(journal, tape, fork, entries);
      } catch (error) {
        this.#fail("journal fork of", tape, error);
      }
    });
  }

  /**
   * Appends the journal of `fork` (then `extra`) to the tape as one batch and removes the
   * journal, so that a crash leaves all or none of it (see `file/_journal.ts`).
   */
  async journalCommit(
    tape: string,
    fork: string,
    extra: readonly TapeEntry[] = [],
  ): Promise<void> {
    validateForkId(fork);
    const path = this.pathOf(tape);
    const journal = journalPath(path, fork);
    const what = `commit fork ${fork} to tape ${JSON.stringify(tape)} (${path})`;
    await this.#mutex.run(
      journal,
      () =>
        this.#mutex.run(tape, () =>
          this.#retry.run(what, async () => {
            const content = readJournal(journal, fork);
            if (content === null) return this.#journals.close(journal); // committed already
            const checked = prepareBatch(tape, [...content.entries, ...extra]);
            const merging = mergingPath(path);
            await this.#write(tape, path, checked, {
              before: (offset, length) =>
                this.#journals.markMerging(journal, merging, offset, length),
              failed: () => renameSync(merging, journal),
            });
            this.#journals.close(journal);
            try {
              unlinkSync(merging);
            } catch {
              // Finished by another writer already.
            }
          })),
    );
  }

  /** Removes the journal of `fork`. */
  async journalDiscard(tape: string, fork: string): Promise<void> {
    validateForkId(fork);
    const journal = journalPath(this.pathOf(tape), fork);
    await this.#mutex.run(journal, () => Promise.resolve(this.#journals.discard(journal)));
  }

  /** The journals of `tape` left on disk, oldest first (a merge a killed process left is finished first). */
  /** The tapes with a journal (or an unfinished merge) in the directory, sorted. */
  async journalTapes(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return [];
      throw error;
    }
    const tapes = names.map((name) => /^(.+)\.jsonl\.(?:fork\.|merging$)/.exec(name)?.[1])
      .filter((tape): tape is string => tape !== undefined);
    return [...new Set(tapes)].sort();
  }

  async journalPending(tape: string): Promise<PendingFork[]> {
    const path = this.pathOf(tape);
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return [];
      this.#fail("list forks of", tape, error);
    }
    if (names.includes(`${tape}.jsonl.merging`)) {
      await this.#finishMerge(tape, path);
      names = await readdir(this.directory); // an undone merge is a journal again
    }
    return readJournals(names, tape, path);
  }

  async #finishMerge(tape: string, path: string): Promise<void> {
    await this.#mutex.run(tape, () =>
      withFileLock(`${path}.lock`, () => {
        const { fd, size } = this.#files.acquire(tape, path, this.#spare);
        try {
          finishMerge(path, fd, size, () => this.#cache.delete(tape));
        } finally {
          this.#files.release(tape, fd);
        }
        return Promise.resolve();
      }, {
        what: `tape ${JSON.stringify(tape)}`,
        timeoutMs: this.#lockTimeoutMs,
        template: this.#template,
      }));
  }

  async #write(
    tape: string,
    path: string,
    checked: PreparedEntry[],
    merge?: BatchMerge,
  ): Promise<void> {
    try {
      await this.#ensureDirectory();
    } catch (error) {
      if (isFullDisk(error)) throw error; // retried (see `retrySeconds`)
      this.#fail("append entry to", tape, error);
    }
    const target = {
      tape,
      path,
      files: this.#files,
      cache: this.#cache,
      spare: this.#spare,
      durable: this.#durable,
      ...(merge ? { merge } : {}),
    };
    const lock = { timeoutMs: this.#lockTimeoutMs, template: this.#template };
    await appendBatch(target, checked, lock, (action, error) => this.#fail(action, tape, error));
  }

  async #refresh(tape: string, query: QuerySpec): Promise<FileCache> {
    const path = this.pathOf(tape);
    // Fast path: a missing file, or one that has not changed since it was last read, needs no
    // open (reads happen several times per turn).
    let current;
    try {
      current = statTape(path, !this.#cache.has(tape));
    } catch (error) {
      this.#fail("read", tape, error);
    }
    if (current === undefined && this.#directoryExists()) {
      this.#cache.delete(tape);
      return emptyCache();
    }
    const known = this.#cache.get(tape);
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
        (fd, size, ino) => this.#cache.catchUp(tape, fd, size, ino, query),
      );
    } catch (error) {
      this.#fail("read", tape, error);
    }
    if (cache === null) this.#cache.delete(tape);
    return cache ?? emptyCache();
  }

  /**
   * Answers a kinds-and-limit query from the start of the file (first entries of those kinds),
   * leaving the cache alone; null when the cache holds the whole file or the file is missing
   * (the ordinary path answers then).
   */
  #head(query: TapeQuery): Promise<TapeEntry[] | null> {
    if (this.#cache.get(query.tape)?.base === 0) return Promise.resolve(null);
    // A missing file has no entries (one `stat`, no failed open); with a cache left of it (another
    // process reset the tape) the ordinary path drops that cache.
    if (this.#statQuiet(query.tape) === undefined) {
      const gone = this.#cache.get(query.tape) === undefined && this.#directoryExists();
      return Promise.resolve(gone ? [] : null);
    }
    return this.#withFile(query.tape, (fd, size) => readHead(fd, size, query));
  }

  /**
   * True when the directory is one (then a tape file `stat` did not find is missing). Once seen it
   * is remembered: a directory removed later holds no tapes, which the `stat` of a tape tells.
   */
  #directoryExists(): boolean {
    if (this.#directorySeen) return true;
    try {
      // Searchable too: a tape `existsSync` did not find there is then missing, not unreachable.
      this.#directorySeen =
        (statSync(this.directory, { throwIfNoEntry: false })?.isDirectory() ?? false) &&
        (accessSync(this.directory, constants.X_OK), true);
    } catch {
      this.#directorySeen = false;
    }
    return this.#directorySeen;
  }

  #ensureDirectory(): Promise<void> {
    this.#ready ??= mkdir(this.directory, { recursive: true, mode: 0o700 }).then(
      () => {},
      (error) => {
        this.#ready = null;
        throw error;
      },
    );
    return this.#ready;
  }

  /** Forgets the caches and closes the files it holds open (the files stay); retries give up. */
  async close(): Promise<void> {
    this.#stop.abort();
    await Promise.resolve();
    this.#files.closeAll();
    this.#journals.closeAll();
    // A store that wrote here also removes what killed processes left (see `file/_stray_files.ts`).
    const wrote = this.#template.close();
    if (await this.#spare.close() || wrote) pruneStrayFiles(this.directory);
    this.#cache.clear();
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
