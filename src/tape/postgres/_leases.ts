/**
 * Leases in the PostgreSQL tape store: one row per key (a session) with its owner, epoch and
 * expiry, on the database clock. Taking a free or expired lease bumps the epoch; appends fenced
 * by an older epoch insert nothing (see `_append.ts`).
 *
 * @module
 */
import type { PgRow, PgSql } from "./_client.ts";
import type { PgTables } from "./_schema.ts";

/**
 * A granted lease.
 *
 * @example
 * ```ts
 * import type { TapeLease } from "@bub/core/tape";
 * function stillMine(lease: TapeLease, now: Date): boolean {
 *   return lease.expiresAt > now;
 * }
 * ```
 */
export interface TapeLease {
  /** What is leased (e.g. a session id). */
  readonly key: string;
  /** The instance that holds it. */
  readonly owner: string;
  /** Grows by one at every change of owner; appends are fenced by it. */
  readonly epoch: number;
  /** When it expires unless renewed (database clock). */
  readonly expiresAt: Date;
}

function _lease(key: string, owner: string, row: PgRow | undefined): TapeLease | null {
  if (!row) return null;
  return {
    key,
    owner,
    epoch: Number(row.epoch),
    expiresAt: new Date(Number(row.until_ms)),
  };
}

/** Takes `key` for `owner` when it is free, released or expired; null while another holds it. */
export async function pgAcquireLease(
  sql: PgSql,
  t: PgTables,
  key: string,
  owner: string,
  ttlMs: number,
): Promise<TapeLease | null> {
  const rows = await sql.unsafe(
    `INSERT INTO ${t.leases} AS l (key, owner, epoch, lease_until)
    VALUES ($1, $2, 1, clock_timestamp() + $3 * interval '1 millisecond')
    ON CONFLICT (key) DO UPDATE SET owner = $2, epoch = l.epoch + 1, lease_until = EXCLUDED.lease_until
    WHERE l.owner IS NULL OR l.lease_until < clock_timestamp()
    RETURNING epoch, (extract(epoch FROM lease_until) * 1000)::float8 AS until_ms`,
    [key, owner, ttlMs],
  );
  return _lease(key, owner, rows[0]);
}

/** Extends a lease still held at its epoch; null when it was lost (stop writing). */
export async function pgRenewLease(
  sql: PgSql,
  t: PgTables,
  lease: TapeLease,
  ttlMs: number,
): Promise<TapeLease | null> {
  const rows = await sql.unsafe(
    `UPDATE ${t.leases} SET lease_until = clock_timestamp() + $4 * interval '1 millisecond'
    WHERE key = $1 AND owner = $2 AND epoch = $3 RETURNING epoch, (extract(epoch FROM lease_until) * 1000)::float8 AS until_ms`,
    [lease.key, lease.owner, lease.epoch, ttlMs],
  );
  return _lease(lease.key, lease.owner, rows[0]);
}

/** Gives a lease up (the next owner need not wait for the expiry); false when it was lost. */
export async function pgReleaseLease(sql: PgSql, t: PgTables, lease: TapeLease): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE ${t.leases} SET owner = NULL, lease_until = clock_timestamp()
    WHERE key = $1 AND owner = $2 AND epoch = $3 RETURNING epoch`,
    [lease.key, lease.owner, lease.epoch],
  );
  return rows.length > 0;
}
