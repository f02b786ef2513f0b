/**
 * The PostgreSQL client of the tape store: `postgres` (postgres.js), imported on first use so
 * importing `@bub/core` does not load it, behind the few calls the store makes.
 *
 * @module
 */
import { lazyImport } from "../../_internal/lazy.ts";

/** A row as postgres.js returns it (bigint and numeric columns arrive as strings). */
export type PgRow = Record<string, unknown>;

/** The part of a postgres.js `Sql` the store uses. */
export interface PgSql {
  /** Runs one statement with `$n` parameters. */
  unsafe(query: string, params?: unknown[]): Promise<PgRow[]>;
  /** Runs `fn` in a transaction on one connection; commits when it resolves. */
  begin<T>(fn: (tx: PgSql) => Promise<T>): Promise<T>;
  /**
   * Subscribes to `channel` on a dedicated connection (re-subscribed after a reconnect);
   * resolves once listening.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<{
    unlisten(): Promise<void>;
  }>;
  /** Closes every connection (waiting at most `timeout` seconds for running queries). */
  end(options?: { timeout?: number }): Promise<void>;
}

/** Connection settings of {@link connectPg}. */
export interface PgConnectOptions {
  /** Pool size (default 10). */
  max?: number;
  /** Seconds to wait for a connection (default 10). */
  connectTimeoutSeconds?: number;
  /** `application_name` of the connections (default "bub"). */
  applicationName?: string;
}

const postgresModule = lazyImport(() => import("postgres"));

/** True for `postgres://` and `postgresql://` URLs. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** `url` with its password replaced by `***`, for messages. */
export function redactPgUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@?#]*):[^@/?#]*@/i, "$1:***@");
}

/** A pool for `url`; connections open on the first query. Notices are dropped. */
export async function connectPg(url: string, options: PgConnectOptions = {}): Promise<PgSql> {
  const postgres = (await postgresModule()).default as unknown as (
    url: string,
    options: Record<string, unknown>,
  ) => PgSql;
  return postgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? "bub" },
  });
}
