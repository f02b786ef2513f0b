/**
 * Leases in the PostgreSQL tape store: one row per key (a session) with its owner, epoch and
 * expiry, on the database clock. Taking a free or expired lease bumps the epoch; appends fenced
 * by an older epoch insert nothing (see `_append.ts`); such an append fails with `leaseLost`, and
 * the store checks lease arguments with `checkLease`.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
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

/** The `temporary` BubError (`details.reason === "lease_lost"`) of an append `fence` refused. */
export function leaseLost(tape: string, fence: TapeLease): BubError {
  return new BubError(
    "temporary",
    `Cannot append to tape ${
      JSON.stringify(tape)
    }: the lease ${fence.key} (epoch ${fence.epoch}) of ${fence.owner} was lost`,
    { tape, reason: "lease_lost", key: fence.key, owner: fence.owner, epoch: fence.epoch },
  );
}

/** Checks lease arguments: a TypeError unless key and owner are non-empty and `ttlMs` > 0. */
export function checkLease(key: unknown, owner: unknown, ttlMs: unknown): void {
  if (typeof key !== "string" || key === "" || typeof owner !== "string" || owner === "") {
    throw new TypeError("Cannot use a lease: key and owner must be non-empty strings");
  }
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new TypeError(`Cannot use a lease: ttlMs must be a number > 0, got ${String(ttlMs)}`);
  }
}
