/**
 * Appends to the PostgreSQL tape store: one statement per batch that moves the tape's head by
 * the batch size (holding the tape row's lock until commit) and inserts the rows from arrays;
 * optionally fenced by a lease, so an owner that lost its lease inserts nothing.
 *
 * @module
 */
import { entryColumns } from "../store/_db_rows.ts";
import { randomUUID } from "node:crypto";
import type { PgSql } from "./_client.ts";
import type { PgPool } from "./_pool.ts";
import type { PgTables } from "./_schema.ts";
import type { TapeEntry } from "../entry.ts";

/** The fence of an append: the lease row that must still hold this owner and epoch. */
export interface PgFence {
  /** The lease key. */
  readonly key: string;
  /** The owner. */
  readonly owner: string;
  /** The epoch the owner was granted. */
  readonly epoch: number;
}

/** Column arrays (kind, anchor, event, payload, meta, date) of validated entries. */
export type PgColumns = (string | null)[][];

/** Validates `entries` (TypeErrors naming the tape) and returns their column arrays. */
export function appendColumns(tape: string, entries: readonly TapeEntry[]): PgColumns {
  const columns: PgColumns = [[], [], [], [], [], []];
  for (const entry of entries) {
    const { kind, anchor, event, payload, meta, date } = entryColumns(tape, entry);
    [kind, anchor, event, payload, meta, date].forEach((value, i) => columns[i]!.push(value));
  }
  return columns;
}

/** What one {@link pgAppend} writes besides the rows. */
export interface PgAppendOptions {
  /** The lease that must still hold (null: unfenced). */
  readonly fence?: PgFence | null;
  /**
   * Inbox rows of the fence's session marked done by the same statement; with `release`, the
   * fence's lease is given up by it too when the session has no other pending message.
   */
  readonly complete?: {
    readonly inbox: string;
    readonly ids: readonly number[];
    readonly release?: boolean;
  } | null;
  /**
   * The batch's unique token (a UUID), recorded on the tape's row: the same batch sent again (a retry
   * after a dropped connection) inserts nothing when the first one committed, which
   * {@link pgBatchLanded} then tells.
   */
  readonly batch?: string | null;
  /**
   * A compare-and-swap (unfenced appends only): the rows are inserted only when the tape's head
   * (its newest id) is this one, checked on the tape's row under its lock; else nothing (0).
   */
  readonly lastId?: number | null;
}

/**
 * Inserts the rows in one statement; returns how many were inserted (0 when `fence` no longer
 * holds, or when the tape's row already records `batch`). The fence takes a share lock on the
 * lease row, so a takeover waits for this append and an append after a takeover sees the new
 * epoch. With `complete` (and a fence), the inbox rows `complete.ids` of the fence's session are
 * marked done by the same statement when it appends.
 */
export async function pgAppend(
  sql: PgSql,
  t: PgTables,
  tape: string,
  columns: PgColumns,
  options: PgAppendOptions = {},
): Promise<number> {
  return (await pgAppendReleasing(sql, t, tape, columns, options)).inserted;
}

/** What {@link pgAppendReleasing} did. */
export interface PgAppendResult {
  /** Rows inserted (see {@link pgAppend}). */
  readonly inserted: number;
  /** True when `complete.release` gave the lease up. */
  readonly released: boolean;
}

/** {@link pgAppend}, also telling whether `complete.release` gave the lease up. */
export async function pgAppendReleasing(
  sql: PgSql,
  t: PgTables,
  tape: string,
  columns: PgColumns,
  options: PgAppendOptions = {},
): Promise<PgAppendResult> {
  const fence = options.fence ?? null;
  const complete = options.complete ?? null;
  const count = columns[0]!.length;
  const lastId = options.lastId ?? null;
  if (fence && lastId !== null) throw new TypeError("A fenced append cannot also be conditional");
  // $1 tape, $2 count, $3 batch, $4..$9 the columns, then the fence and the completion (or the
  // expected head of a conditional append).
  const params: unknown[] = [tape, count, options.batch ?? null, ...columns];
  let source = fence
    ? `SELECT $1, $2::bigint, $3::uuid FROM ${t.leases} WHERE key = $10 AND owner = $11 AND epoch = $12 FOR SHARE`
    : "VALUES ($1, $2::bigint, $3::uuid)";
  let expect = "";
  if (fence) params.push(fence.key, fence.owner, fence.epoch);
  else if (lastId !== null) {
    // A missing tape's row is made only when the batch may start the tape; an existing row
    // moves only from the expected head (re-checked on its newest version under the row lock).
    params.push(lastId);
    source = `SELECT $1, $2::bigint, $3::uuid WHERE $10::bigint = 0 OR EXISTS ` +
      `(SELECT 1 FROM ${t.tapes} WHERE name = $1)`;
    expect = " AND t.head = $10::bigint";
  }
  // The inbox rows of a fenced turn end in the same statement, only when the fence held.
  let done = "";
  if (fence && complete) {
    params.push(complete.ids.map(String));
    done = `, done AS (
      UPDATE ${complete.inbox} SET state = 'done', done_at = clock_timestamp()
      WHERE id = ANY($13::bigint[]) AND session = $10 AND state = 'pending' AND EXISTS (SELECT 1 FROM h)
      RETURNING 1
    )`;
    // The session is idle once these rows are done: the lease goes in the same commit (the
    // NOTIFY of a message enqueued meanwhile wakes the instances to claim it).
    if (complete.release === true) {
      done += `, rel AS (
        UPDATE ${t.leases} SET owner = NULL, lease_until = clock_timestamp()
        WHERE key = $10 AND owner = $11 AND epoch = $12 AND EXISTS (SELECT 1 FROM h)
          AND NOT EXISTS (
            SELECT 1 FROM ${complete.inbox}
            WHERE session = $10 AND state = 'pending' AND NOT (id = ANY($13::bigint[]))
          )
        RETURNING 1
      )`;
    }
  }
  const released = done.includes("rel AS") ? "(SELECT count(*) FROM rel)::int" : "0";
  const rows = await sql.unsafe(
    `WITH h AS (
      INSERT INTO ${t.tapes} AS t (name, head, batch) ${source} ON CONFLICT (name)
      DO UPDATE SET head = t.head + $2, batch = EXCLUDED.batch
      WHERE ($3::uuid IS NULL OR t.batch IS DISTINCT FROM $3::uuid)${expect}
      RETURNING head
    ), ins AS (
      INSERT INTO ${t.entries} (tape, id, kind, anchor, event, payload, meta, date)
      SELECT $1, h.head - $2 + r.n, r.kind, r.anchor, r.event, r.payload::json, r.meta::json, r.date
      FROM h, unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
        WITH ORDINALITY AS r(kind, anchor, event, payload, meta, date, n)
      RETURNING 1
    )${done} SELECT count(*)::int AS n, ${released} AS released FROM ins`,
    params,
  );
  return { inserted: Number(rows[0]?.n ?? 0), released: Number(rows[0]?.released ?? 0) > 0 };
}

/** True when the tape's row records `batch`: that batch committed (see {@link pgAppend}). */
export async function pgBatchLanded(
  sql: PgSql,
  t: PgTables,
  tape: string,
  batch: string,
): Promise<boolean> {
  const rows = await sql.unsafe(`SELECT 1 FROM ${t.tapes} WHERE name = $1 AND batch = $2::uuid`, [
    tape,
    batch,
  ]);
  return rows.length > 0;
}

/**
 * {@link pgAppend} run by `pool`, which retries it on a transient failure; a retry that inserted
 * nothing asks whether the first attempt committed before its connection dropped (the batch
 * token), so the rows land once. Returns the rows inserted.
 */
export function pgAppendRetried(
  pool: PgPool,
  tape: string,
  columns: PgColumns,
  options: Pick<PgAppendOptions, "fence" | "lastId">,
): Promise<number> {
  const batch = randomUUID();
  return pool.retry(`append to tape ${JSON.stringify(tape)}`, async (sql, attempt) => {
    const n = await pgAppend(sql, pool.tables, tape, columns, { ...options, batch });
    if (n > 0 || attempt === 1) return n;
    return await pgBatchLanded(sql, pool.tables, tape, batch) ? columns[0]!.length : 0;
  });
}
