/**
 * `PostgresTapeStore`: tapes in PostgreSQL (postgres.js), same semantics and ids as the file and
 * SQLite stores; several processes may share one database, coordinating through leases whose
 * epochs fence appends.
 *
 * @module
 */
import { KeyedMutex } from "./store/_mutex.ts";
import { appendColumns, pgAppendRetried } from "./postgres/_append.ts";
import { redactPgUrl } from "./postgres/_client.ts";
import {
  checkLease,
  leaseLost,
  pgAcquireLease,
  pgReleaseLease,
  pgRenewLease,
  type TapeLease,
} from "./postgres/_leases.ts";
import {
  getPgStoreInternals,
  type PgStoreInternals,
  setPgStoreInternals,
} from "./postgres/_internals.ts";
import { PgPool } from "./postgres/_pool.ts";
import { pgFetchAll, pgLatestEvents } from "./postgres/_query.ts";
import {
  journalAppend,
  journalCommit,
  journalDiscard,
  journalPending,
  journalTapes,
} from "./postgres/_store_forks.ts";
import { type TapeEntry, validateTapeName } from "./entry.ts";
import type { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";
import type { ForkJournal, PendingFork } from "./fork_journal.ts";

export type { TapeLease } from "./postgres/_leases.ts";
export type { PgStoreInternals } from "./postgres/_internals.ts";

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

/** The pool and tables of `store` (for the modules built on it, not for users). */
export function pgStoreInternals(store: PostgresTapeStore): PgStoreInternals {
  return getPgStoreInternals(store);
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
  #pool: PgPool;
  #appends = new KeyedMutex();

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
    this.#pool = new PgPool(url, options);
    this.url = this.#pool.url;
    this.schema = this.#pool.schema;
    setPgStoreInternals(this, this.#pool.internals());
  }

  /** Sorted tape names with exactly one `__` (no sidecars). */
  async listTapes(): Promise<string[]> {
    const rows = await this.#pool.retry(
      "list tapes",
      (sql) => sql.unsafe(`SELECT name FROM ${this.#pool.tables.tapes}`),
    );
    return rows.map((row) => String(row.name))
      .filter((tape) => tape.split("__").length === 2)
      .sort();
  }

  /** Deletes a tape (its entries and its id counter) in one transaction. */
  async reset(tape: string): Promise<void> {
    validateTapeName(tape);
    const tables = this.#pool.tables;
    await this.#appends.run(
      tape,
      () =>
        this.#pool.retry(`reset tape ${JSON.stringify(tape)}`, (sql) =>
          sql.begin(async (tx) => {
            await tx.unsafe(`DELETE FROM ${tables.tapes} WHERE name = $1`, [tape]);
            await tx.unsafe(`DELETE FROM ${tables.entries} WHERE tape = $1`, [tape]);
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
    const inserted = await this.#appends.run(
      tape,
      () => pgAppendRetried(this.#pool, tape, columns, { fence }),
    );
    if (fence && inserted === 0) throw leaseLost(tape, fence);
  }

  /**
   * Appends entries in one statement only when the tape's head (its newest id) is `lastId`, moved
   * under the tape row's lock (see `TapeStore.appendIfLast`); unfenced.
   */
  async appendIfLast(
    tape: string,
    entries: readonly TapeEntry[],
    lastId: number,
  ): Promise<boolean> {
    const columns = appendColumns(tape, entries);
    if (entries.length === 0) return true;
    const inserted = await this.#appends.run(
      tape,
      () => pgAppendRetried(this.#pool, tape, columns, { lastId }),
    );
    return inserted > 0;
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
    await journalAppend(this.#pool, tape, fork, entries, options.fence ?? null);
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
    await journalCommit(this.#pool, this.#appends, tape, fork, extra, options.fence ?? null);
  }

  /** Deletes the journal of `fork`. */
  async journalDiscard(tape: string, fork: string): Promise<void> {
    await journalDiscard(this.#pool, tape, fork);
  }

  /** The tapes with a journal, sorted. */
  async journalTapes(): Promise<string[]> {
    return await journalTapes(this.#pool);
  }

  /** The journals of `tape` still there, oldest first. */
  async journalPending(tape: string): Promise<PendingFork[]> {
    return await journalPending(this.#pool, tape);
  }

  /** The newest event of each of `names` (one indexed lookup per name), in tape order. */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    validateTapeName(tape);
    return await this.#pool.retry(
      `read tape ${JSON.stringify(tape)}`,
      (sql) => pgLatestEvents(sql, this.#pool.tables, tape, names),
    );
  }

  /** Evaluates a query: the anchor slice, kinds and a plain limit in SQL, the rest in memory. */
  async fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    return await this.#pool.retry(
      `read tape ${JSON.stringify(query.tape)}`,
      (sql) => pgFetchAll(sql, this.#pool.tables, query),
    );
  }

  /**
   * Takes the lease of `key` (e.g. a session id) for `owner` when it is free, released or
   * expired (the epoch grows by one); null while another owner holds it. Times are on the
   * database clock.
   */
  async acquireLease(key: string, owner: string, ttlMs: number): Promise<TapeLease | null> {
    checkLease(key, owner, ttlMs);
    return await pgAcquireLease(await this.#pool.open(), this.#pool.tables, key, owner, ttlMs);
  }

  /** Extends a lease for `ttlMs`; null when it was lost (another owner took over). */
  async renewLease(lease: TapeLease, ttlMs: number): Promise<TapeLease | null> {
    checkLease(lease?.key, lease?.owner, ttlMs);
    return await pgRenewLease(await this.#pool.open(), this.#pool.tables, lease, ttlMs);
  }

  /** Releases a lease at once; false when it had already been lost. */
  async releaseLease(lease: TapeLease): Promise<boolean> {
    return await pgReleaseLease(await this.#pool.open(), this.#pool.tables, lease);
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
    await this.#pool.close();
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
