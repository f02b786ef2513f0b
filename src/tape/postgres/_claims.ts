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
}

/**
 * Leases up to `limit` unowned sessions with pending messages to `owner` and returns them with
 * their pending messages, the session with the oldest message first. With `share` > 1, at most
 * that fraction of the waiting sessions (at least one) is taken, leaving the rest to other
 * instances claiming at the same time. Two statements: the leases
 * in one, then the messages in a snapshot taken after them (a previous owner completes its
 * messages before it releases the lease, so completed messages are never returned).
 */
export async function pgClaimSessions(
  sql: PgSql,
  t: PgTables,
  owner: string,
  ttlMs: number,
  limit: number,
  share = 1,
): Promise<InboxClaim[]> {
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
    )
    SELECT taken.key, taken.epoch, taken.until_ms FROM taken
    JOIN candidates c ON c.session = taken.key ORDER BY c.first`,
    [owner, ttlMs, limit, share],
  );
  if (taken.length === 0) return [];
  const claims = new Map<string, InboxClaim>();
  for (const row of taken) {
    const key = String(row.key);
    const lease = {
      key,
      owner,
      epoch: Number(row.epoch),
      expiresAt: new Date(Number(row.until_ms)),
    };
    claims.set(key, { lease, messages: [] });
  }
  const messages = await sql.unsafe(
    `SELECT id, session, body::text AS body FROM ${t.inbox}
    WHERE session = ANY($1::text[]) AND state = 'pending' ORDER BY id`,
    [[...claims.keys()]],
  );
  for (const row of messages) {
    const session = String(row.session);
    claims.get(session)?.messages.push({
      id: Number(row.id),
      session,
      body: JSON.parse(String(row.body)),
    });
  }
  return [...claims.values()];
}
