/**
 * PostgreSQL for tests: the server of `scripts/postgres.sh` (`BUB_TEST_POSTGRES_URL`). Without
 * it the PostgreSQL tests are skipped with a visible message, unless
 * `BUB_TEST_POSTGRES_REQUIRED=1` (CI), where they fail.
 */
import process from "node:process";
import { test } from "node:test";
import { connectPg, type PgSql } from "../../src/tape/postgres/_client.ts";

const HOW = "run them with: scripts/postgres.sh -- <test command>";

/**
 * The server URL, or null after registering a skipped test (or a failing one when PostgreSQL is
 * required) named `what`.
 */
export function postgresUrl(what: string): string | null {
  const url = process.env.BUB_TEST_POSTGRES_URL;
  if (url) return url;
  if (process.env.BUB_TEST_POSTGRES_REQUIRED === "1") {
    test(`${what}: BUB_TEST_POSTGRES_URL is required`, () => {
      throw new Error(`BUB_TEST_POSTGRES_REQUIRED=1 but BUB_TEST_POSTGRES_URL is unset; ${HOW}`);
    });
    return null;
  }
  console.log(`SKIP ${what}: BUB_TEST_POSTGRES_URL is unset; ${HOW}`);
  test(`${what} (skipped: BUB_TEST_POSTGRES_URL is unset)`, { skip: HOW }, () => {});
  return null;
}

/** A unique schema name for one test. */
export function uniqueSchema(): string {
  return `bub_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/** Runs `fn` with an admin connection (one connection), closed afterwards. */
export async function withAdmin<T>(url: string, fn: (sql: PgSql) => Promise<T>): Promise<T> {
  const sql = await connectPg(url, { max: 1 });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Drops a test schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  await withAdmin(url, (sql) => sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}
