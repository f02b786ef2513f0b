/**
 * What a `PostgresTapeStore` shares with the modules built on it (the inbox, the leader election,
 * the cluster gateway): its pool, table names and retry policy, looked up by store (see
 * `pgStoreInternals` in `../postgres_store.ts`), not reachable by users.
 *
 * @module
 */
import type { PgSql } from "./_client.ts";
import type { PgTables } from "./_schema.ts";

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
   * `PostgresTapeStoreOptions.retrySeconds`); `what` completes "Cannot ..." in its error.
   */
  retry<T>(what: string, op: (sql: PgSql, attempt: number) => Promise<T>): Promise<T>;
  /** Ends every retry now (each failure is final from then on); the pool stays open. */
  stopRetrying(): void;
}

const INTERNALS = new WeakMap<object, PgStoreInternals>();

/** Registers the internals of `store` (by its constructor). */
export function setPgStoreInternals(store: object, internals: PgStoreInternals): void {
  INTERNALS.set(store, internals);
}

/** The internals of `store`; a TypeError when it is no PostgreSQL tape store. */
export function getPgStoreInternals(store: object): PgStoreInternals {
  const found = INTERNALS.get(store);
  if (!found) throw new TypeError("Expected a PostgresTapeStore");
  return found;
}
