/**
 * The connection pool of a `PostgresTapeStore` (see `../postgres_store.ts`): connected and
 * migrated on first use (again after a failed start), every operation run with the store's retry
 * policy, closed once; it gives what the store shares as its internals (see `_internals.ts`).
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import { retrySecondsOption, StoreRetry } from "../store/_retry.ts";
import { connectPg, type PgSql, redactPgUrl } from "./_client.ts";
import type { PgStoreInternals } from "./_internals.ts";
import { migratePg, type PgTables, pgTables } from "./_schema.ts";
import { isPgTransient } from "./_transient.ts";

/** The pool options the store passes on (those of `PostgresTapeStoreOptions`). */
export interface PgPoolOptions {
  schema?: string;
  max?: number;
  connectTimeoutSeconds?: number;
  retrySeconds?: number;
}

/** The lazily opened, retrying pool of one store. */
export class PgPool {
  /** The connection URL with its password hidden. */
  readonly url: string;
  /** The schema of the tables. */
  readonly schema: string;
  /** The qualified table names. */
  readonly tables: PgTables;
  #url: string;
  #options: PgPoolOptions;
  #sql: Promise<PgSql> | null = null;
  #closed = false;
  #stop = new AbortController();
  #retry: StoreRetry;

  constructor(url: string, options: PgPoolOptions) {
    this.tables = pgTables(options.schema ?? "public");
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
  }

  /** `op` on the pool, retried while the server is unreachable. */
  retry<T>(what: string, op: (sql: PgSql, attempt: number) => Promise<T>): Promise<T> {
    return this.#retry.run(what, async (attempt) => await op(await this.open(), attempt));
  }

  /** A new client of one connection to the database (closed by its user). */
  connectOne(): Promise<PgSql> {
    return connectPg(this.#url, { max: 1 });
  }

  /** Ends every retry now; the pool stays open. */
  stopRetrying(): void {
    this.#stop.abort();
  }

  /** The internals the store shares: methods bound to this pool (callers may destructure them). */
  internals(): PgStoreInternals {
    return {
      open: () => this.open(),
      tables: this.tables,
      connectOne: () => this.connectOne(),
      retry: (what, op) => this.retry(what, op),
      stopRetrying: () => this.stopRetrying(),
    };
  }

  /** The pool, connected and migrated (a `config` BubError when that fails). */
  open(): Promise<PgSql> {
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

  /** Closes the pool (running queries get 5 s); operations still retrying give up. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stop.abort();
    const sql = this.#sql;
    this.#sql = null;
    if (sql) await (await sql.catch(() => null))?.end({ timeout: 5 });
  }
}
