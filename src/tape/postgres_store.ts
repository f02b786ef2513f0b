/**
 * `PostgresTapeStore`: tapes in PostgreSQL (postgres.js), same semantics and ids as the file and
 * SQLite stores; several processes may share one database, coordinating through leases whose
 * epochs fence appends.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { BubError } from "../kernel/errors.ts";
import { KeyedMutex } from "./store/_mutex.ts";
import { appendColumns, pgAppend, pgBatchLanded } from "./postgres/_append.ts";
import { connectPg, type PgSql, redactPgUrl } from "./postgres/_client.ts";
import {
  pgAcquireLease,
  pgReleaseLease,
  pgRenewLease,
  type TapeLease,
} from "./postgres/_leases.ts";
import { pgFetchAll, pgLatestEvents } from "./postgres/_query.ts";
import { migratePg, type PgTables, pgTables } from "./postgres/_schema.ts";
import { isPgTransient } from "./postgres/_transient.ts";
import { retrySecondsOption, StoreRetry } from "./store/_retry.ts";
import { type TapeEntry, validateTapeName } from "./entry.ts";
import type { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";
import {
  pgJournalAppend,
  pgJournalCommit,
  pgJournalDiscard,
  pgJournalLanded,
  pgJournalPending,
} from "./postgres/_journal.ts";
import {
  type ForkJournal,
  ownerAlive,
  ownerTag,
  type PendingFork,
  validateForkId,
} from "./fork_journal.ts";

export type { TapeLease } from "./postgres/_leases.ts";

/**
 * Options of {@link PostgresTapeStore}.
 *
 * @example
 * ```ts
 * import { PostgresTapeStore } from "@bub/core";
 * import type { PostgresTapeStoreOptions } from "@bub/core/tape";
 * const options: PostgresTapeStoreOptions = { schema: "bub", max: 4, connectTimeoutSeconds: 5 };
 * await using store = new PostgresTapeStore("postgres://bub@127.0.0.1:5432/bub", options); // connects on first use
 * ```
 */
export interface PostgresTapeStoreOptions {
  /** The schema of the store's tables (default `"public"`; created when missing). */
  schema?: string;
  /** Connection pool size (default 10). */
  max?: number;
  /** Seconds to wait for a connection (default 10). */
  connectTimeoutSeconds?: number;
  /**
   * How long an operation retries while the server is unreachable (connection refused or
   * dropped, the server shutting down or starting), in seconds, with backoff; then it fails with
   * a `temporary` BubError (`details.reason === "store_unavailable"`) naming the URL without
   * the password. Default 0: such failures are that error at once. Appends are retried exactly
   * once in effect: a batch that committed before its connection dropped is not stored again.
   */
  retrySeconds?: number;
}

const INTERNALS = new WeakMap<PostgresTapeStore, PgStoreInternals>();

/** What the PostgreSQL inbox shares with its store: the pool (schema ready) and table names. */
export interface PgStoreInternals {
  /** The pool, connected and migrated. */
  open(): Promise<PgSql>;
  /** The qualified table names. */
  readonly tables: PgTables;
  /** A new client of one connection to the store's database (closed by its user). */
  connectOne(): Promise<PgSql>;
  /**
   * Runs `op` on the pool with the store's retry policy (see
   * {@link PostgresTapeStoreOptions.retrySeconds}); `what` completes "Cannot ..." in its error.
   */
  retry<T>(what: string, op: (sql: PgSql, attempt: number) => Promise<T>): Promise<T>;
  /** Ends every retry now (each failure is final from then on); the pool stays open. */
  stopRetrying(): void;
}

/** The pool and tables of `store` (for the modules built on it, not for users). */
export function pgStoreInternals(store: PostgresTapeStore): PgStoreInternals {
  const found = INTERNALS.get(store);
  if (!found) throw new TypeError("Expected a PostgresTapeStore");
  return found;
}

/**
 * Tapes in PostgreSQL. Appends take the tape's row lock (`bub_tapes.head`), so ids stay gapless
 * across processes; a batch is one statement. Anchor slices, `latestEvents` and kind filters run
 * in SQL on indexes. The schema is created (or migrated) on first use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { messageEntry, PostgresTapeStore, TapeQuery } from "@bub/core/tape";
 * // e.g. postgres://postgres@127.0.0.1:5432/postgres (scripts/postgres.sh starts one)
 * const url = Deno.env.get("BUB_TEST_POSTGRES_URL");
 * if (url) {
 *   const schema = `doc_${crypto.randomUUID().slice(0, 8)}`;
 *   await using store = new PostgresTapeStore(url, { schema });
 *   await store.append("a__b", messageEntry({ role: "user", content: "hi" }));
 *   assert.ok((await new TapeQuery("a__b", store).all())[0]?.id === 1);
 * }
 * ```
 */
export class PostgresTapeStore implements TapeStore, ForkJournal, AsyncDisposable {
  /** The connection URL with its password hidden. */
  readonly url: string;
  /** The schema of the tables. */
  readonly schema: string;
  #url: string;
  #options: PostgresTapeStoreOptions;
  #tables: PgTables;
  #sql: Promise<PgSql> | null = null;
  #closed = false;
  #appends = new KeyedMutex();
  #stop = new AbortController();
  #retry: StoreRetry;

  /**
   * Creates the object; nothing connects before the first operation.
   *
   * @param url `postgres://user:password@host:port/database` (or `postgresql://`)
   * @param options schema and pool settings
   */
  constructor(url: string, options: PostgresTapeStoreOptions = {}) {
    if (typeof url !== "string" || !/^postgres(ql)?:\/\/./i.test(url)) {
      throw new TypeError(
        `Cannot create PostgresTapeStore: url must be a postgres:// or postgresql:// URL, got ${
          typeof url === "string" ? JSON.stringify(redactPgUrl(url)) : typeof url
        }`,
      );
    }
    this.#tables = pgTables(options.schema ?? "public");
    this.#url = url;
    this.url = redactPgUrl(url);
    this.schema = options.schema ?? "public";
    this.#options = options;
    this.#retry = new StoreRetry({
      kind: "postgres",
      name: this.url,
      retrySeconds: retrySecondsOption("PostgresTapeStore", options.retrySeconds),
      isTransient: isPgTransient,
      signal: this.#stop.signal,
    });
    INTERNALS.set(this, {
      open: () => this.#open(),
      tables: this.#tables,
      connectOne: () => connectPg(this.#url, { max: 1 }),
      retry: (what, op) => this.#run(what, op),
      stopRetrying: () => this.#stop.abort(),
    });
  }

  /** `op` on the pool, retried while the server is unreachable. */
  #run<T>(what: string, op: (sql: PgSql, attempt: number) => Promise<T>): Promise<T> {
    return this.#retry.run(what, async (attempt) => await op(await this.#open(), attempt));
  }

  #open(): Promise<PgSql> {
    if (this.#closed) {
      return Promise.reject(
        new BubError("invalid_input", `Cannot use PostgresTapeStore ${this.url}: it is closed`),
      );
    }
    this.#sql ??= (async () => {
      const sql = await connectPg(this.#url, {
        ...(this.#options.max === undefined ? {} : { max: this.#options.max }),
        ...(this.#options.connectTimeoutSeconds === undefined
          ? {}
          : { connectTimeoutSeconds: this.#options.connectTimeoutSeconds }),
      });
      try {
        await migratePg(sql, this.schema);
      } catch (error) {
        await sql.end({ timeout: 0 }).catch(() => {});
        throw error;
      }
      return sql;
    })().catch((error) => {
      this.#sql = null;
      if (BubError.isInstance(error)) throw error;
      throw new BubError(
        "config",
        `Cannot open PostgreSQL tape store ${this.url}: ${(error as Error)?.message ?? error}`,
        { url: this.url, schema: this.schema },
        { cause: error },
      );
    });
    return this.#sql;
  }

  /** Sorted tape names with exactly one `__` (no sidecars). */
  async listTapes(): Promise<string[]> {
    const rows = await this.#run(
      "list tapes",
      (sql) => sql.unsafe(`SELECT name FROM ${this.#tables.tapes}`),
    );
    return rows.map((row) => String(row.name))
      .filter((tape) => tape.split("__").length === 2)
      .sort();
  }

  /** Deletes a tape (its entries and its id counter) in one transaction. */
  async reset(tape: string): Promise<void> {
    validateTapeName(tape);
    await this.#appends.run(
      tape,
      () =>
        this.#run(`reset tape ${JSON.stringify(tape)}`, (sql) =>
          sql.begin(async (tx) => {
            await tx.unsafe(`DELETE FROM ${this.#tables.tapes} WHERE name = $1`, [tape]);
            await tx.unsafe(`DELETE FROM ${this.#tables.entries} WHERE tape = $1`, [tape]);
          })),
    );
  }

  /** Appends one entry. */
  async append(tape: string, entry: TapeEntry): Promise<void> {
    await this.appendMany(tape, [entry]);
  }

  /**
   * Appends entries in one statement: the tape's head moves by the batch size (taking its row
   * lock until commit) and the rows are inserted with the ids below the new head. With `fence`,
   * nothing is stored unless the lease still has that owner and epoch: a `temporary` BubError
   * with `details.reason === "lease_lost"`.
   */
  async appendMany(
    tape: string,
    entries: readonly TapeEntry[],
    options: { fence?: TapeLease } = {},
  ): Promise<void> {
    const columns = appendColumns(tape, entries);
    if (entries.length === 0) return;
    const fence = options.fence ?? null;
    const batch = randomUUID();
    const inserted = await this.#appends.run(
      tape,
      () =>
        this.#run(`append to tape ${JSON.stringify(tape)}`, async (sql, attempt) => {
          const n = await pgAppend(sql, this.#tables, tape, columns, { fence, batch });
          // A retry that inserted nothing: the first attempt may have committed before its
          // connection dropped.
          if (n > 0 || attempt === 1) return n;
          return await pgBatchLanded(sql, this.#tables, tape, batch) ? entries.length : 0;
        }),
    );
    if (fence && inserted === 0) throw _leaseLost(tape, fence);
  }

  /**
   * Appends to the journal of `fork` (see `fork_journal.ts`) in one statement, fenced like
   * {@link appendMany} with `fence`.
   */
  async journalAppend(
    tape: string,
    fork: string,
    entries: readonly TapeEntry[],
    options: { fence?: TapeLease } = {},
  ): Promise<void> {
    validateForkId(fork);
    const columns = appendColumns(tape, entries);
    if (entries.length === 0) return;
    const fence = options.fence ?? null;
    const batch = randomUUID();
    const owner = ownerTag();
    const inserted = await this.#run(
      `journal fork ${fork} of tape ${JSON.stringify(tape)}`,
      async (sql, attempt) => {
        const options = { fence, batch };
        const n = await pgJournalAppend(sql, this.#tables, tape, fork, owner, columns, options);
        if (n > 0 || attempt === 1) return n;
        return await pgJournalLanded(sql, this.#tables, tape, fork, batch) ? entries.length : 0;
      },
    );
    if (fence && inserted === 0) throw _leaseLost(tape, fence);
  }

  /**
   * Moves the journal of `fork` (then `extra`) into the tape and deletes it in one statement,
   * fenced with `fence`; a journal already committed commits nothing.
   */
  async journalCommit(
    tape: string,
    fork: string,
    extra: readonly TapeEntry[] = [],
    options: { fence?: TapeLease } = {},
  ): Promise<void> {
    validateForkId(fork);
    const columns = appendColumns(tape, extra);
    const fence = options.fence ?? null;
    const result = await this.#appends.run(
      tape,
      () =>
        this.#run(
          `commit fork ${fork} to tape ${JSON.stringify(tape)}`,
          (sql) => pgJournalCommit(sql, this.#tables, tape, fork, columns, fence),
        ),
    );
    if (fence && !result.held) throw _leaseLost(tape, fence);
  }

  /** Deletes the journal of `fork`. */
  async journalDiscard(tape: string, fork: string): Promise<void> {
    validateForkId(fork);
    await this.#run(
      `discard fork ${fork} of tape ${JSON.stringify(tape)}`,
      (sql) => pgJournalDiscard(sql, this.#tables, tape, fork),
    );
  }

  /** The journals of `tape` still there, oldest first. */
  /** The tapes with a journal, sorted. */
  async journalTapes(): Promise<string[]> {
    const rows = await this.#run(
      "list forks",
      (sql) => sql.unsafe(`SELECT DISTINCT tape FROM ${this.#tables.forks} ORDER BY tape`),
    );
    return rows.map((row: Record<string, unknown>) => String(row.tape));
  }

  async journalPending(tape: string): Promise<PendingFork[]> {
    validateTapeName(tape);
    const forks = await this.#run(
      `list forks of tape ${JSON.stringify(tape)}`,
      (sql) => pgJournalPending(sql, this.#tables, tape),
    );
    return forks.map((fork) => ({ ...fork, alive: ownerAlive(fork.owner, fork.fork) }));
  }

  /** The newest event of each of `names` (one indexed lookup per name), in tape order. */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    validateTapeName(tape);
    return await this.#run(
      `read tape ${JSON.stringify(tape)}`,
      (sql) => pgLatestEvents(sql, this.#tables, tape, names),
    );
  }

  /** Evaluates a query: the anchor slice, kinds and a plain limit in SQL, the rest in memory. */
  async fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    return await this.#run(
      `read tape ${JSON.stringify(query.tape)}`,
      (sql) => pgFetchAll(sql, this.#tables, query),
    );
  }

  /**
   * Takes the lease of `key` (e.g. a session id) for `owner` when it is free, released or
   * expired (the epoch grows by one); null while another owner holds it. Times are on the
   * database clock.
   */
  async acquireLease(key: string, owner: string, ttlMs: number): Promise<TapeLease | null> {
    _checkLease(key, owner, ttlMs);
    return await pgAcquireLease(await this.#open(), this.#tables, key, owner, ttlMs);
  }

  /** Extends a lease for `ttlMs`; null when it was lost (another owner took over). */
  async renewLease(lease: TapeLease, ttlMs: number): Promise<TapeLease | null> {
    _checkLease(lease?.key, lease?.owner, ttlMs);
    return await pgRenewLease(await this.#open(), this.#tables, lease, ttlMs);
  }

  /** Releases a lease at once; false when it had already been lost. */
  async releaseLease(lease: TapeLease): Promise<boolean> {
    return await pgReleaseLease(await this.#open(), this.#tables, lease);
  }

  /**
   * A view of this store whose appends are fenced by `lease`: after a takeover they throw
   * (`details.reason === "lease_lost"`) and store nothing. Reads and resets are not fenced.
   */
  fenced(lease: TapeLease): TapeStore {
    return {
      listTapes: async () => await this.listTapes(),
      reset: async (tape) => await this.reset(tape),
      fetchAll: async (query) => await this.fetchAll(query as TapeQuery),
      append: async (tape, entry) => await this.appendMany(tape, [entry], { fence: lease }),
      appendMany: async (tape, entries) => await this.appendMany(tape, entries, { fence: lease }),
      latestEvents: async (tape, names) => await this.latestEvents(tape, names),
      journalAppend: async (tape: string, fork: string, entries: readonly TapeEntry[]) =>
        await this.journalAppend(tape, fork, entries, { fence: lease }),
      journalCommit: async (tape: string, fork: string, extra?: readonly TapeEntry[]) =>
        await this.journalCommit(tape, fork, extra, { fence: lease }),
      journalDiscard: async (tape: string, fork: string) => await this.journalDiscard(tape, fork),
      journalPending: async (tape: string) => await this.journalPending(tape),
    } as TapeStore & ForkJournal;
  }

  /** Closes the pool (running queries get 5 s); operations still retrying give up. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stop.abort();
    const sql = this.#sql;
    this.#sql = null;
    if (sql) await (await sql.catch(() => null))?.end({ timeout: 5 });
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function _leaseLost(tape: string, fence: TapeLease): BubError {
  return new BubError(
    "temporary",
    `Cannot append to tape ${
      JSON.stringify(tape)
    }: the lease ${fence.key} (epoch ${fence.epoch}) of ${fence.owner} was lost`,
    { tape, reason: "lease_lost", key: fence.key, owner: fence.owner, epoch: fence.epoch },
  );
}

function _checkLease(key: unknown, owner: unknown, ttlMs: unknown): void {
  if (typeof key !== "string" || key === "" || typeof owner !== "string" || owner === "") {
    throw new TypeError("Cannot use a lease: key and owner must be non-empty strings");
  }
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new TypeError(`Cannot use a lease: ttlMs must be a number > 0, got ${String(ttlMs)}`);
  }
}
