/**
 * `SqliteTapeStore`: tapes in one SQLite database (WAL mode), same semantics and ids as the
 * file store.
 *
 * @module
 */
import { delay } from "../_internal/async.ts";
import { nonEmptyString } from "../_internal/non_empty.ts";
import { BubError } from "../kernel/errors.ts";
import { entryColumns, evaluateSliceRows, rowEntry } from "./store/_db_rows.ts";
import { sqliteInsert, sqliteLatestEvents, sqliteSliceRows } from "./sqlite/_rows.ts";
import { isSqliteTransient, openSqlite, type SqliteDatabase } from "./sqlite/_driver.ts";
import { retrySecondsOption, StoreRetry } from "./store/_retry.ts";
import { type TapeEntry, validateTapeName } from "./entry.ts";
import type { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";
import {
  SQLITE_JOURNAL_SCHEMA,
  sqliteJournalAppend,
  sqliteJournalCommit,
  sqliteJournalDiscard,
  sqliteJournalPending,
} from "./sqlite/_journal.ts";
import {
  type ForkJournal,
  ownerAlive,
  ownerTag,
  type PendingFork,
  validateForkId,
} from "./fork_journal.ts";

/**
 * Options of {@link SqliteTapeStore}.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { SqliteTapeStore } from "@bub/core";
 * import type { SqliteTapeStoreOptions } from "@bub/core/tape";
 * const options: SqliteTapeStoreOptions = { durable: false, busyTimeoutMs: 2_000 };
 * await using store = new SqliteTapeStore(join(mkdtempSync(join(tmpdir(), "tapes-")), "tapes.db"), options);
 * ```
 */
export interface SqliteTapeStoreOptions {
  /** `synchronous=FULL` (default true) rather than `NORMAL`. */
  durable?: boolean;
  /** How long a write waits for another connection (default 30 000 ms). */
  busyTimeoutMs?: number;
  /**
   * How long an operation retries, after the busy timeout, while the database stays locked (or
   * the disk is full), in seconds, with backoff; then it fails with a `temporary` BubError
   * (`details.reason === "store_unavailable"`) naming the file. Default 0 (fail at once).
   */
  retrySeconds?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tape_entries (
  tape TEXT NOT NULL, id INTEGER NOT NULL, kind TEXT NOT NULL, anchor TEXT,
  payload TEXT NOT NULL, meta TEXT NOT NULL, date TEXT NOT NULL,
  PRIMARY KEY (tape, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tape_entries_anchor ON tape_entries (tape, anchor, id)
  WHERE anchor IS NOT NULL;
`;

/**
 * Tapes in an SQLite file. The anchor slice runs in SQL on an anchor index, so reading after
 * the last anchor does not depend on the entries before it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SqliteTapeStore, TapeQuery } from "@bub/core";
 * import { messageEntry } from "@bub/core/tape";
 * const dir = await Deno.makeTempDir();
 * await using store = new SqliteTapeStore(`${dir}/tapes.db`);
 * await store.append("a__b", messageEntry({ role: "user", content: "hi" }));
 * assert.ok((await new TapeQuery("a__b", store).all())[0]?.id === 1);
 * ```
 */
export class SqliteTapeStore implements TapeStore, ForkJournal, AsyncDisposable {
  /** The database file. */
  readonly path: string;
  #options: SqliteTapeStoreOptions;
  #db: Promise<SqliteDatabase> | null = null;
  #closed = false;
  #stop = new AbortController();
  #retry: StoreRetry;

  /**
   * Creates the object.
   *
   * @param path the database file (created when missing)
   * @param options durability and busy timeout
   */
  constructor(path: string, options: SqliteTapeStoreOptions = {}) {
    this.path = nonEmptyString(
      path,
      "Cannot create SqliteTapeStore: path must be a non-empty string",
    );
    this.#options = options;
    this.#retry = new StoreRetry({
      kind: "sqlite",
      name: JSON.stringify(path),
      retrySeconds: retrySecondsOption("SqliteTapeStore", options.retrySeconds),
      isTransient: isSqliteTransient,
      signal: this.#stop.signal,
    });
  }

  /** `op` on the open database, retried while it is locked (see `retrySeconds`). */
  #run<T>(what: string, op: (db: SqliteDatabase) => T | Promise<T>): Promise<T> {
    return this.#retry.run(what, async () => await op(await this.#open()));
  }

  #open(): Promise<SqliteDatabase> {
    if (this.#closed) {
      return Promise.reject(
        new BubError(
          "invalid_input",
          `Cannot use SqliteTapeStore ${JSON.stringify(this.path)}: it is closed`,
        ),
      );
    }
    this.#db ??= openSqlite(this.path).then(async (db) => {
      const busyMs = Math.trunc(this.#options.busyTimeoutMs ?? 30_000);
      db.exec(`PRAGMA busy_timeout = ${busyMs}`);
      // Switching to WAL and creating the schema can meet SQLITE_BUSY without the busy handler
      // while another process opens the same file: retry until the busy timeout.
      const deadline = Date.now() + busyMs;
      for (let wait = 5;; wait = Math.min(wait * 2, 100)) {
        try {
          db.exec("PRAGMA journal_mode = WAL");
          db.exec(`PRAGMA synchronous = ${this.#options.durable === false ? "NORMAL" : "FULL"}`);
          db.exec(SCHEMA + SQLITE_JOURNAL_SCHEMA);
          return db;
        } catch (error) {
          if (!/locked|busy/i.test(String((error as Error)?.message)) || Date.now() > deadline) {
            throw error;
          }
          await delay(wait);
        }
      }
    }).catch((error) => {
      this.#db = null;
      throw new BubError(
        "config",
        `Cannot open tape database ${JSON.stringify(this.path)}: ${(error as Error).message}`,
        null,
        { cause: error },
      );
    });
    return this.#db;
  }

  /** Sorted tape names with exactly one `__` (no sidecars). */
  async listTapes(): Promise<string[]> {
    const rows = await this.#run(
      "list tapes",
      (db) => db.prepare("SELECT DISTINCT tape FROM tape_entries ORDER BY tape").all(),
    );
    return rows.map((row) => String(row.tape)).filter((tape) => tape.split("__").length === 2);
  }

  /** Deletes a tape. */
  async reset(tape: string): Promise<void> {
    validateTapeName(tape);
    await this.#run(
      `reset tape ${JSON.stringify(tape)}`,
      (db) => db.prepare("DELETE FROM tape_entries WHERE tape = ?").run(tape),
    );
  }

  /** Appends one entry. */
  async append(tape: string, entry: TapeEntry): Promise<void> {
    await this.appendMany(tape, [entry]);
  }

  /** Appends entries in one transaction. */
  async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
    const rows = _rows(tape, entries);
    // A locked database fails at BEGIN (nothing written) or COMMIT (rolled back): a retry
    // writes the batch once.
    await this.#run(`append to tape ${JSON.stringify(tape)}`, (db) => sqliteInsert(db, tape, rows));
  }

  /** Appends entries in one transaction only when the tape's newest id is `lastId` (see `TapeStore`). */
  async appendIfLast(
    tape: string,
    entries: readonly TapeEntry[],
    lastId: number,
  ): Promise<boolean> {
    const rows = _rows(tape, entries);
    return await this.#run(
      `append to tape ${JSON.stringify(tape)}`,
      (db) => sqliteInsert(db, tape, rows, lastId),
    );
  }

  /** Appends to the journal of `fork` (see `fork_journal.ts`) in one transaction. */
  async journalAppend(tape: string, fork: string, entries: readonly TapeEntry[]): Promise<void> {
    validateForkId(fork);
    const rows = _rows(tape, entries);
    await this.#run(
      `journal fork ${fork} of tape ${JSON.stringify(tape)}`,
      (db) => sqliteJournalAppend(db, tape, fork, ownerTag(), rows),
    );
  }

  /** Moves the journal of `fork` (then `extra`) into the tape and drops it, in one transaction. */
  async journalCommit(
    tape: string,
    fork: string,
    extra: readonly TapeEntry[] = [],
  ): Promise<void> {
    validateForkId(fork);
    const rows = _rows(tape, extra);
    await this.#run(
      `commit fork ${fork} to tape ${JSON.stringify(tape)}`,
      (db) => sqliteJournalCommit(db, tape, fork, rows),
    );
  }

  /** Drops the journal of `fork`. */
  async journalDiscard(tape: string, fork: string): Promise<void> {
    validateForkId(fork);
    await this.#run(
      `discard fork ${fork} of tape ${JSON.stringify(tape)}`,
      (db) => sqliteJournalDiscard(db, tape, fork),
    );
  }

  /** The journals of `tape` still there, oldest first. */
  /** The tapes with a journal, sorted. */
  async journalTapes(): Promise<string[]> {
    return await this.#run(
      "list forks",
      (db) =>
        db.prepare("SELECT DISTINCT tape FROM tape_forks ORDER BY tape").all().map((row) =>
          String(row.tape)
        ),
    );
  }

  async journalPending(tape: string): Promise<PendingFork[]> {
    validateTapeName(tape);
    const forks = await this.#run(
      `list forks of tape ${JSON.stringify(tape)}`,
      (db) => sqliteJournalPending(db, tape),
    );
    return forks.map((fork) => ({ ...fork, alive: ownerAlive(fork.owner, fork.fork) }));
  }

  /**
   * The newest event of each of `names`: per name, the tape's events whose payload holds the
   * name's JSON form, newest first on the primary key, checked after parsing (pages of 16).
   */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    validateTapeName(tape);
    return await this.#run(
      `read tape ${JSON.stringify(tape)}`,
      (db) => sqliteLatestEvents(db, tape, names),
    );
  }

  /** The newest entry of `tape` (the primary key's last row), or null. */
  async lastEntry(tape: string): Promise<TapeEntry | null> {
    validateTapeName(tape);
    const row = await this.#run(`read tape ${JSON.stringify(tape)}`, (db) =>
      db.prepare(
        "SELECT id, kind, payload, meta, date FROM tape_entries WHERE tape = ? ORDER BY id DESC LIMIT 1",
      ).get(tape));
    return row ? rowEntry(row) : null;
  }

  /** Evaluates a query; text queries use the newest-first search pass. */
  async fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    const rows = await this.#run(
      `read tape ${JSON.stringify(query.tape)}`,
      (db) => sqliteSliceRows(db, query),
    );
    return await evaluateSliceRows(rows, query);
  }

  /** Closes the database; operations still retrying give up. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stop.abort();
    const db = this.#db;
    this.#db = null;
    if (db) (await db.catch(() => null))?.close();
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function _rows(tape: string, entries: readonly TapeEntry[]): unknown[][] {
  return entries.map((entry) => {
    const { kind, anchor, payload, meta, date } = entryColumns(tape, entry);
    return [kind, anchor, payload, meta, date];
  });
}
