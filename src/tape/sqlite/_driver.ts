/**
 * The one place that picks an SQLite binding: `bun:sqlite` on Bun, `node:sqlite` on Deno and
 * Node. Both are loaded with a computed specifier so type-checkers need neither.
 *
 * @module
 */
import { closeSync, openSync } from "node:fs";
import { runtimeKey } from "../../_internal/runtime.ts";

/** A prepared statement with positional parameters. */
export interface SqliteStatement {
  /** Executes; returns the number of changed rows. */
  run(...params: unknown[]): unknown;
  /** The first row, or undefined. */
  get(...params: unknown[]): Record<string, unknown> | undefined;
  /** Every row. */
  all(...params: unknown[]): Record<string, unknown>[];
}

/** An open database. */
export interface SqliteDatabase {
  /** Runs one or more statements without parameters. */
  exec(sql: string): void;
  /** Prepares a statement. */
  prepare(sql: string): SqliteStatement;
  /** Closes the database. */
  close(): void;
}

interface _RawStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

interface _RawDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): _RawStatement;
  close(): void;
}

function _wrap(raw: _RawDatabase): SqliteDatabase {
  return {
    exec: (sql) => void raw.exec(sql),
    prepare: (sql) => {
      const statement = raw.prepare(sql);
      return {
        run: (...params) => statement.run(...params),
        get: (...params) =>
          (statement.get(...params) ?? undefined) as Record<string, unknown> | undefined,
        all: (...params) => statement.all(...params) as Record<string, unknown>[],
      };
    },
    close: () => raw.close(),
  };
}

/** SQLite's primary result codes that a later attempt may not meet: BUSY, LOCKED, FULL. */
const TRANSIENT_RESULTS: ReadonlySet<number> = new Set([5, 6, 13]);
const TRANSIENT_MESSAGE = /database is locked|database table is locked|database or disk is full/i;

/**
 * True when `error` (or a cause) is SQLite's "database is locked" (another connection holds the
 * write lock past the busy timeout) or "database or disk is full": worth retrying. `node:sqlite`
 * reports the result code as `errcode`, `bun:sqlite` as `errno` and a `SQLITE_*` `code`.
 */
export function isSqliteTransient(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 8; depth++) {
    const { code, errcode, errno, message } = e as Record<string, unknown>;
    const result = typeof errcode === "number" ? errcode : typeof errno === "number" ? errno : -1;
    if (result > 0 && TRANSIENT_RESULTS.has(result & 0xff)) return true;
    if (typeof code === "string" && /^SQLITE_(BUSY|LOCKED|FULL)/.test(code)) return true;
    if (typeof message === "string" && TRANSIENT_MESSAGE.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Which binding {@link openSqlite} uses on this runtime. */
export function sqliteBinding(): "bun:sqlite" | "node:sqlite" {
  return runtimeKey() === "bun" ? "bun:sqlite" : "node:sqlite";
}

/** Opens (creating, mode 0600) the database file at `path`. */
export async function openSqlite(path: string): Promise<SqliteDatabase> {
  // SQLite gives its -wal and -shm files the mode of the database file.
  if (path !== ":memory:" && !path.startsWith("file:")) closeSync(openSync(path, "a", 0o600));
  const binding = sqliteBinding();
  const specifier = [binding.split(":")[0], binding.split(":")[1]].join(":");
  const module = await import(specifier) as Record<
    string,
    new (path: string, options?: object) => _RawDatabase
  >;
  if (binding === "bun:sqlite") return _wrap(new module.Database!(path, { create: true }));
  return _wrap(new module.DatabaseSync!(path));
}
