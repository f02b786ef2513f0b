/**
 * Claims of the PostgreSQL inbox: in one statement, the sessions with pending messages and no live
 * owner (oldest first message first, up to a limit) are leased to one owner and their pending
 * messages returned. The leases are taken row by row in key order (so concurrent claimers never
 * deadlock); a lease another claimer took meanwhile is skipped (the upsert re-checks the lease
 * row's latest version), so a session never has two owners.
 *
 * @module
 */
import type { PgSql } from "./_client.ts";
import type { TapeLease } from "./_leases.ts";
import type { PgTables } from "./_schema.ts";

/**
 * A pending inbound message.
 *
 * @example
 * ```ts
 * import type { InboxMessage } from "@bub/core/tape";
 * const message: InboxMessage = { id: 7, session: "telegram:42", body: { content: "hi" } };
 * ```
 */
export interface InboxMessage {
  /** The row id (increasing in arrival order). */
  readonly id: number;
  /** The session it belongs to. */
  readonly session: string;
  /** The message as enqueued. */
  readonly body: Record<string, unknown>;
}

/**
 * A session claimed with its pending messages (oldest first).
 *
 * @example
 * ```ts
 * import type { InboxClaim } from "@bub/core/tape";
 * function contents(claim: InboxClaim): unknown[] {
 *   return claim.messages.map((message) => message.body.content);
 * }
 * ```
 */
export interface InboxClaim {
  /** The lease taken (renew it with the store while working). */
  readonly lease: TapeLease;
  /** The session's pending messages as of the claim, oldest first. */
  readonly messages: InboxMessage[];
  /**
   * With {@link ClaimOptions.latestEvent}: the `data` of the newest event of that name on the
   * session's tape, or null when there is none.
   */
  readonly latestEvent?: Record<string, unknown> | null;
  /**
   * With `latestEvent.record`: the id of the message the new event names (the oldest pending
   * one), or null.
   */
  readonly recorded?: number | null;
}

/**
 * Options of a claim.
 *
 * @example
 * ```ts
 * import type { ClaimOptions } from "@bub/core/tape";
 * const options: ClaimOptions = {
 *   share: 2,
 *   latestEvent: { tapePrefix: "0123456789abcdef__", name: "cluster.turn_started" },
 * };
 * ```
 */
export interface ClaimOptions {
  /**
   * At most 1/share of the waiting sessions (at least one) are taken. Default 1.
   */
  readonly share?: number;
  /**
   * Also read the newest event named `name` on each claimed session's tape, named
   * `<tapePrefix><first 16 hex digits of md5(session)>` (see `sessionTapeName`), in the same
   * statement. With `record` (an entry date), the statement also appends an event of that name
   * `{message_id, owner, epoch}` naming the oldest pending message to the tape (the start of the
   * turn that runs it: no append of its own), after the read.
   */
  readonly latestEvent?: {
    readonly tapePrefix: string;
    readonly name: string;
    readonly record?: string;
  };
}

/**
 * Leases up to `limit` unowned sessions with pending messages to `owner` and returns them with
 * their pending messages, the session with the oldest message first. With `share` > 1, at most
 * that fraction of the waiting sessions (at least one) is taken, leaving the rest to other
 * instances claiming at the same time. One statement: the leases, and the messages locked
 * `FOR SHARE`, so that a completion committed after the statement's snapshot (a previous owner
 * completes its messages before it releases the lease, or before its lease expires) is seen: a
 * locked row is read again in its newest version and a completed one is left out.
 */
export async function pgClaimSessions(
  sql: PgSql,
  t: PgTables,
  owner: string,
  ttlMs: number,
  limit: number,
  options: ClaimOptions = {},
): Promise<InboxClaim[]> {
  const latest = options.latestEvent ?? null;
  const event = latest === null ? "NULL::text" : `(
      SELECT e.payload::text FROM ${t.entries} e
      WHERE e.tape = $5 || left(md5(taken.key), 16) AND e.event = $6 ORDER BY e.id DESC LIMIT 1
    )`;
  // The new event goes to the tape as an append does: the tape's head moves by one, the row's id.
  const record = latest?.record
    ? `, firsts AS (
      SELECT DISTINCT ON (m.session) m.session, m.id, $5 || left(md5(m.session), 16) AS tape
      FROM messages m ORDER BY m.session, m.id
    ), heads AS (
      INSERT INTO ${t.tapes} AS tp (name, head) SELECT tape, 1 FROM firsts ORDER BY tape
      ON CONFLICT (name) DO UPDATE SET head = tp.head + 1
      RETURNING name, head
    ), started AS (
      INSERT INTO ${t.entries} (tape, id, kind, anchor, event, payload, meta, date)
      SELECT h.name, h.head, 'event', NULL, $6, json_build_object('name', $6::text, 'data',
        json_build_object('message_id', f.id, 'owner', $1::text, 'epoch', k.epoch)), '{}'::json, $7
      FROM heads h JOIN firsts f ON f.tape = h.name JOIN taken k ON k.key = f.session
      RETURNING tape
    )`
    : "";
  const recorded = latest?.record
    ? "(SELECT f.id FROM firsts f WHERE f.session = taken.key)"
    : "NULL::bigint";
  const taken = await sql.unsafe(
    `WITH waiting AS (
      SELECT i.session, min(i.id) AS first FROM ${t.inbox} i
      WHERE i.state = 'pending' AND NOT EXISTS (
        SELECT 1 FROM ${t.leases} l
        WHERE l.key = i.session AND l.owner IS NOT NULL AND l.lease_until >= clock_timestamp()
      )
      GROUP BY i.session
    ), ranked AS (
      SELECT session, first, row_number() OVER (ORDER BY first) AS n, count(*) OVER () AS total
      FROM waiting
    ), candidates AS (
      SELECT session, first FROM ranked WHERE n <= least($3, greatest(1, ceil(total / $4::float8)))
    ), taken AS (
      INSERT INTO ${t.leases} AS l (key, owner, epoch, lease_until)
      SELECT session, $1, 1, clock_timestamp() + $2 * interval '1 millisecond'
      FROM candidates ORDER BY session
      ON CONFLICT (key) DO UPDATE
        SET owner = EXCLUDED.owner, epoch = l.epoch + 1, lease_until = EXCLUDED.lease_until
      WHERE l.owner IS NULL OR l.lease_until < clock_timestamp()
      RETURNING key, epoch, (extract(epoch FROM lease_until) * 1000)::float8 AS until_ms
    ), messages AS (
      SELECT i.id, i.session, i.body::text AS body FROM ${t.inbox} i
      WHERE i.state = 'pending' AND i.session IN (SELECT key FROM taken)
      FOR SHARE OF i
    )${record}
    SELECT taken.key, taken.epoch, taken.until_ms, (
      SELECT json_agg(json_build_object('id', m.id, 'body', m.body) ORDER BY m.id)::text
      FROM messages m WHERE m.session = taken.key
    ) AS messages, ${event} AS latest, ${recorded} AS recorded FROM taken
    JOIN candidates c ON c.session = taken.key ORDER BY c.first`,
    [
      owner,
      ttlMs,
      limit,
      options.share ?? 1,
      ...latest ? [latest.tapePrefix, latest.name] : [],
      ...latest?.record ? [latest.record] : [],
    ],
  );
  return taken.map((row) => {
    const key = String(row.key);
    const lease = {
      key,
      owner,
      epoch: Number(row.epoch),
      expiresAt: new Date(Number(row.until_ms)),
    };
    const rows = JSON.parse(String(row.messages ?? "[]")) as { id: unknown; body: string }[] | null;
    const messages = (rows ?? []).map((message) => ({
      id: Number(message.id),
      session: key,
      body: JSON.parse(message.body) as Record<string, unknown>,
    }));
    if (latest === null) return { lease, messages };
    const recordedId = row.recorded === null ? null : Number(row.recorded);
    const payload = row.latest === null ? null : JSON.parse(String(row.latest));
    const data = payload?.data;
    return {
      lease,
      messages,
      latestEvent: typeof data === "object" && data !== null ? data : payload === null ? null : {},
      ...latest.record ? { recorded: recordedId } : {},
    };
  });
}
