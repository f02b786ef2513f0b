/**
 * Fork journals of `PostgresTapeStore` (see `../fork_journal.ts`): a fork's entries in
 * `bub_fork_entries` under a `bub_forks` row. An append is one statement (the fork row's `head`
 * numbers the rows, its `batch` token makes a retried append land once); the commit is one
 * statement that deletes the journal and inserts its rows (then the extra ones) into the tape
 * with the tape's next ids: all or nothing, once (a retry finds no journal). Both may be fenced
 * by a lease like the tape's appends (`_append.ts`): after a takeover they change nothing.
 *
 * @module
 */
import { rowEntry } from "../store/_db_rows.ts";
import type { PendingFork } from "../fork_journal.ts";
import type { PgColumns, PgFence } from "./_append.ts";
import type { PgSql } from "./_client.ts";
import type { PgTables } from "./_schema.ts";

/**
 * Appends `columns` to the journal of `fork` (made when new) in one statement; returns the rows
 * inserted (0 when `fence` no longer holds or when the fork row already records `batch`).
 */
export async function pgJournalAppend(
  sql: PgSql,
  t: PgTables,
  tape: string,
  fork: string,
  owner: string,
  columns: PgColumns,
  options: { fence?: PgFence | null; batch?: string | null } = {},
): Promise<number> {
  const fence = options.fence ?? null;
  const count = columns[0]!.length;
  // $1 fork, $2 tape, $3 owner, $4 count, $5 batch, $6..$11 the columns, then the fence.
  const params: unknown[] = [fork, tape, owner, count, options.batch ?? null, ...columns];
  const source = fence
    ? `SELECT $1, $2, $3, $4::bigint, $5::uuid FROM ${t.leases} WHERE key = $12 AND owner = $13 AND epoch = $14 FOR SHARE`
    : "VALUES ($1, $2, $3, $4::bigint, $5::uuid)";
  if (fence) params.push(fence.key, fence.owner, fence.epoch);
  const rows = await sql.unsafe(
    `WITH f AS (
      INSERT INTO ${t.forks} AS f (fork, tape, owner, head, batch) ${source} ON CONFLICT (tape, fork)
      DO UPDATE SET head = f.head + $4, batch = EXCLUDED.batch
      WHERE $5::uuid IS NULL OR f.batch IS DISTINCT FROM $5::uuid
      RETURNING head
    ), ins AS (
      INSERT INTO ${t.forkEntries} (tape, fork, seq, kind, anchor, event, payload, meta, date)
      SELECT $2, $1, f.head - $4 + r.n, r.kind, r.anchor, r.event, r.payload::json, r.meta::json, r.date
      FROM f, unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
        WITH ORDINALITY AS r(kind, anchor, event, payload, meta, date, n)
      RETURNING 1
    ) SELECT count(*)::int AS n FROM ins`,
    params,
  );
  return Number(rows[0]?.n ?? 0);
}

/** True when the journal of `fork` records `batch` as its last append. */
export async function pgJournalLanded(
  sql: PgSql,
  t: PgTables,
  tape: string,
  fork: string,
  batch: string,
): Promise<boolean> {
  const rows = await sql.unsafe(
    `SELECT 1 FROM ${t.forks} WHERE tape = $1 AND fork = $2 AND batch = $3::uuid`,
    [tape, fork, batch],
  );
  return rows.length > 0;
}

/** What {@link pgJournalCommit} did. */
export interface PgCommitResult {
  /** False when the fence no longer held (nothing changed). */
  held: boolean;
  /** False when there was no journal (committed already, or never made). */
  found: boolean;
  /** Rows inserted into the tape. */
  inserted: number;
}

/**
 * Moves the journal of `fork` into `tape` (its rows, then `extra`, with the tape's next ids)
 * and deletes it, in one statement (fenced by `fence` when given).
 */
export async function pgJournalCommit(
  sql: PgSql,
  t: PgTables,
  tape: string,
  fork: string,
  extra: PgColumns,
  fence: PgFence | null = null,
): Promise<PgCommitResult> {
  // $1 fork, $2 tape, $3..$8 the extra columns, then the fence.
  const params: unknown[] = [fork, tape, ...extra];
  const lease = fence
    ? `SELECT 1 AS ok FROM ${t.leases} WHERE key = $9 AND owner = $10 AND epoch = $11 FOR SHARE`
    : "SELECT 1 AS ok";
  if (fence) params.push(fence.key, fence.owner, fence.epoch);
  const rows = await sql.unsafe(
    `WITH l AS (${lease}),
    f AS (
      DELETE FROM ${t.forks} WHERE fork = $1 AND tape = $2 AND EXISTS (SELECT 1 FROM l)
      RETURNING fork
    ), moved AS (
      DELETE FROM ${t.forkEntries} e WHERE e.tape = $2 AND e.fork IN (SELECT fork FROM f)
      RETURNING e.seq, e.kind, e.anchor, e.event, e.payload::text AS payload, e.meta::text AS meta, e.date
    ), rows AS (
      SELECT row_number() OVER (ORDER BY u.o, u.seq) AS n, u.kind, u.anchor, u.event, u.payload, u.meta, u.date
      FROM (
        SELECT 0 AS o, seq, kind, anchor, event, payload, meta, date FROM moved
        UNION ALL
        SELECT 1, x.n, x.kind, x.anchor, x.event, x.payload, x.meta, x.date
        FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
          WITH ORDINALITY AS x(kind, anchor, event, payload, meta, date, n)
        WHERE EXISTS (SELECT 1 FROM f)
      ) u
    ), c AS (
      SELECT count(*)::bigint AS n FROM rows
    ), h AS (
      INSERT INTO ${t.tapes} AS t (name, head) SELECT $2, c.n FROM c WHERE c.n > 0
      ON CONFLICT (name) DO UPDATE SET head = t.head + EXCLUDED.head
      RETURNING head
    ), ins AS (
      INSERT INTO ${t.entries} (tape, id, kind, anchor, event, payload, meta, date)
      SELECT $2, h.head - c.n + rows.n, rows.kind, rows.anchor, rows.event, rows.payload::json,
        rows.meta::json, rows.date
      FROM h, c, rows
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM l)::int AS held, (SELECT count(*) FROM f)::int AS found,
      (SELECT count(*) FROM ins)::int AS inserted`,
    params,
  );
  const row = rows[0] ?? {};
  return {
    held: Number(row.held ?? 0) > 0,
    found: Number(row.found ?? 0) > 0,
    inserted: Number(row.inserted ?? 0),
  };
}

/** Deletes the journal of `fork` on `tape` (one statement). */
export async function pgJournalDiscard(
  sql: PgSql,
  t: PgTables,
  tape: string,
  fork: string,
): Promise<void> {
  await sql.unsafe(
    `WITH f AS (DELETE FROM ${t.forks} WHERE tape = $1 AND fork = $2 RETURNING 1)
    DELETE FROM ${t.forkEntries} WHERE tape = $1 AND fork = $2`,
    [tape, fork],
  );
}

/** The journals of `tape`, oldest first, with their entries (`alive` left null). */
export async function pgJournalPending(
  sql: PgSql,
  t: PgTables,
  tape: string,
): Promise<PendingFork[]> {
  const forks = await sql.unsafe(
    `SELECT fork, owner FROM ${t.forks} WHERE tape = $1 ORDER BY created, fork`,
    [tape],
  );
  if (forks.length === 0) return [];
  const rows = await sql.unsafe(
    `SELECT fork, seq AS id, kind, payload::text AS payload, meta::text AS meta, date
    FROM ${t.forkEntries} WHERE tape = $1 AND fork = ANY($2::text[]) ORDER BY fork, seq`,
    [tape, forks.map((row) => String(row.fork))],
  );
  const entries = new Map<string, PendingFork["entries"]>();
  for (const row of rows) {
    const list = entries.get(String(row.fork)) ?? [];
    list.push(rowEntry(row));
    entries.set(String(row.fork), list);
  }
  return forks.map((row) => ({
    fork: String(row.fork),
    tape,
    owner: String(row.owner),
    alive: null,
    entries: entries.get(String(row.fork)) ?? [],
  }));
}
