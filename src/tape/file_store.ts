/**
 * `FileTapeStore`: one JSONL file per tape (Bub's format, §5.6), safe for several processes.
 *
 * @module
 */
import { readdir, unlink } from "node:fs/promises";
import { nonEmptyString } from "../_internal/non_empty.ts";
import { BubError } from "../kernel/errors.ts";
import { evaluateQuery } from "./store/_evaluate.ts";
import { prepareBatch } from "./file/_append.ts";
import { withFileLock } from "./file/_lock.ts";
import { errorCode } from "./file/_read.ts";
import { pruneStrayFiles } from "./file/_stray_files.ts";
import { searchPass } from "./store/_search.ts";
import { isHeadQuery } from "./file/_head_scan.ts";
import type { TapeEntry } from "./entry.ts";
import type { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";
import { provideLiveView } from "./store/_live_view.ts";
import type { ForkJournal, PendingFork } from "./fork_journal.ts";
import { FileStoreCore } from "./file/_store_core.ts";
import {
  readHeadQuery,
  readLastEntry,
  readLatestEvents,
  refreshCache,
} from "./file/_store_reads.ts";
import {
  journalAppend,
  journalCommit,
  journalDiscard,
  journalPending,
  journalTapes,
} from "./file/_store_forks.ts";

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
  #core: FileStoreCore;

  /**
   * Creates the object.
   *
   * @param directory created on first write when missing
   * @param options durability and lock waiting
   */
  constructor(directory: string, options: FileTapeStoreOptions = {}) {
    this.directory = nonEmptyString(
      directory,
      "Cannot create FileTapeStore: directory must be a non-empty path",
    );
    const core = this.#core = new FileStoreCore(directory, options);
    // Incremental contexts read a tape's cache, caught up (see `store/_live_view.ts`).
    provideLiveView(
      this,
      (query) => core.mutex.run(query.tape, () => refreshCache(core, query.tape, query)),
    );
  }

  /** The file of `tape`. */
  pathOf(tape: string): string {
    return this.#core.pathOf(tape);
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
    const core = this.#core;
    const path = core.pathOf(tape);
    await core.mutex.run(tape, async () => {
      try {
        await core.ensureDirectory();
        await withFileLock(`${path}.lock`, async () => {
          core.files.drop(tape);
          await unlink(path).catch((error) => {
            if (errorCode(error) !== "ENOENT") throw error;
          });
        }, core.lockOptions(tape));
        core.cache.delete(tape);
      } catch (error) {
        core.fail("reset", tape, error);
      }
    });
  }

  /** Evaluates a query; a text query uses the newest-first search pass (§5.6). */
  async fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    const core = this.#core;
    if (isHeadQuery(query)) {
      const head = await readHeadQuery(core, query);
      if (head !== null) return head;
    }
    const cache = await core.mutex.run(query.tape, () => refreshCache(core, query.tape, query));
    if (query.text) return await searchPass(evaluateQuery(cache, query, { limit: false }), query);
    return evaluateQuery(cache, query);
  }

  /**
   * The newest event of each of `names`: from the cache when it holds the end of the file, and
   * by reading the file backwards before it, so the history before those events is not parsed.
   */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    return await readLatestEvents(this.#core, tape, names);
  }

  /** The newest entry of `tape`, read from the end of its file (see {@link TapeStore}). */
  async lastEntry(tape: string): Promise<TapeEntry | null> {
    return await readLastEntry(this.#core, tape);
  }

  /** Appends one entry (committed, and flushed when durable, when this resolves). */
  async append(tape: string, entry: TapeEntry): Promise<void> {
    await this.appendMany(tape, [entry]);
  }

  /** Appends entries in order under one lock and one flush (the lock released as the flush runs). */
  async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
    const core = this.#core;
    const path = core.pathOf(tape);
    // Checked and copied (serialised once) before the lock, numbered as a new tape's entries;
    // renumbered under the lock when the tape has entries.
    const checked = prepareBatch(tape, entries);
    const what = `append to tape ${JSON.stringify(tape)} (${path})`;
    await core.mutex.run(tape, () => core.retry.run(what, () => core.write(tape, path, checked)));
  }

  /**
   * Appends entries as one batch only when the tape's newest id is `lastId`, checked under the
   * tape's lock after catching up with the file (see `TapeStore.appendIfLast`).
   */
  async appendIfLast(
    tape: string,
    entries: readonly TapeEntry[],
    lastId: number,
  ): Promise<boolean> {
    const core = this.#core;
    const path = core.pathOf(tape);
    const checked = prepareBatch(tape, entries);
    const what = `append to tape ${JSON.stringify(tape)} (${path})`;
    return await core.mutex.run(
      tape,
      () => core.retry.run(what, () => core.write(tape, path, checked, undefined, lastId)),
    );
  }

  /** Appends to the journal of `fork` (see `fork_journal.ts`); flushed when it resolves. */
  async journalAppend(tape: string, fork: string, entries: readonly TapeEntry[]): Promise<void> {
    await journalAppend(this.#core, tape, fork, entries);
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
    await journalCommit(this.#core, tape, fork, extra);
  }

  /** Removes the journal of `fork`. */
  async journalDiscard(tape: string, fork: string): Promise<void> {
    await journalDiscard(this.#core, tape, fork);
  }

  /** The tapes with a journal (or an unfinished merge) in the directory, sorted. */
  async journalTapes(): Promise<string[]> {
    return await journalTapes(this.#core);
  }

  /** The journals of `tape` left on disk, oldest first (a merge a killed process left is finished first). */
  async journalPending(tape: string): Promise<PendingFork[]> {
    return await journalPending(this.#core, tape);
  }

  /** Forgets the caches and closes the files it holds open (the files stay); retries give up. */
  async close(): Promise<void> {
    const core = this.#core;
    core.stop.abort();
    await Promise.resolve();
    core.files.closeAll();
    core.journals.closeAll();
    // A store that wrote here also removes what killed processes left (see `file/_stray_files.ts`).
    const wrote = core.template.close();
    if (await core.spare.close() || wrote) pruneStrayFiles(this.directory);
    core.cache.clear();
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
