/**
 * `PostgresInbox`: the inbound messages of a cluster of instances sharing one
 * {@link PostgresTapeStore}: deduplicated by the channel's message id, announced with
 * LISTEN/NOTIFY, claimed per session through the store's leases, and completed together with the
 * turn's last tape entries.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { BubError } from "../kernel/errors.ts";
import { randomUUID } from "node:crypto";
import { appendColumns, pgAppendReleasing, pgBatchLanded } from "./postgres/_append.ts";
import {
  type ClaimOptions,
  type InboxClaim,
  type InboxMessage,
  pgClaimSessions,
} from "./postgres/_claims.ts";
import type { PgSql } from "./postgres/_client.ts";
import type { TapeLease } from "./postgres/_leases.ts";
import type { PgTables } from "./postgres/_schema.ts";
import type { TapeEntry } from "./entry.ts";
import { pgStoreInternals, type PostgresTapeStore } from "./postgres_store.ts";

/**
 * The NOTIFY channel of new inbox rows in `schema`; the payload is the session id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inboxChannel } from "@bub/core/tape";
 * assert.equal(inboxChannel("public"), "bub_inbox"); // the LISTEN/NOTIFY channel of the inbox
 * assert.equal(inboxChannel("team_a"), "bub_inbox_team_a");
 * ```
 */
export function inboxChannel(schema: string): string {
  return (schema === "public" ? "bub_inbox" : `bub_inbox_${schema}`).slice(0, 63);
}

export type { ClaimOptions, InboxClaim, InboxMessage } from "./postgres/_claims.ts";

/**
 * What {@link PostgresInbox.enqueue} did.
 *
 * @example
 * ```ts
 * import type { EnqueueResult } from "@bub/core/tape";
 * const result: EnqueueResult = { id: 7, duplicate: false };
 * if (result.duplicate) console.log(`message ${result.id} was already queued`);
 * ```
 */
export interface EnqueueResult {
  /** The row id (of the earlier row for a duplicate). */
  readonly id: number;
  /** True when `dedupeKey` had been enqueued before (nothing was added). */
  readonly duplicate: boolean;
}

/**
 * The cluster inbox over a {@link PostgresTapeStore}'s database (same schema).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresInbox, PostgresTapeStore } from "@bub/core/tape";
 * const url = Deno.env.get("BUB_TEST_POSTGRES_URL");
 * if (url) {
 *   await using store = new PostgresTapeStore(url, { schema: `doc_${crypto.randomUUID().slice(0, 8)}` });
 *   const inbox = new PostgresInbox(store);
 *   await inbox.enqueue("telegram:1", { content: "hi" }, { dedupeKey: "telegram:update:7" });
 *   const claimed = await inbox.claim("instance-1", 30_000);
 *   assert.ok(claimed?.lease.key === "telegram:1");
 * }
 * ```
 */
export class PostgresInbox {
  #store: PostgresTapeStore;

  /**
   * Creates the object.
   *
   * @param store the store whose database (and schema) holds the inbox
   */
  constructor(store: PostgresTapeStore) {
    pgStoreInternals(store);
    this.#store = store;
  }

  /**
   * Adds a message for `session` and notifies listeners, in one statement. A `dedupeKey`
   * seen before (e.g. a Telegram `update_id`) adds nothing.
   */
  async enqueue(
    session: string,
    body: Record<string, unknown>,
    options: { dedupeKey?: string } = {},
  ): Promise<EnqueueResult> {
    if (typeof session !== "string" || session === "") {
      throw new TypeError("Cannot enqueue: session must be a non-empty string");
    }
    if (!isRecord(body)) throw new TypeError("Cannot enqueue: body must be an object");
    const text = JSON.stringify(body);
    const { retry, tables } = pgStoreInternals(this.#store);
    // Retried while the server is unreachable (a dedupe key makes a repeat after a commit that
    // lost its answer a duplicate, not a second row).
    return await retry(
      `enqueue a message of ${session}`,
      (sql) => this.#enqueue(sql, tables, session, text, options.dedupeKey ?? null),
    );
  }

  async #enqueue(
    sql: PgSql,
    tables: PgTables,
    session: string,
    text: string,
    dedupeKey: string | null,
  ): Promise<EnqueueResult> {
    // One statement (one transaction): the row and its notification (sent at commit).
    const rows = await sql.unsafe(
      `WITH ins AS (
        INSERT INTO ${tables.inbox} (session, dedupe_key, body) VALUES ($1, $2, $3::text::json)
        ON CONFLICT (dedupe_key) DO NOTHING RETURNING id
      ) SELECT id, pg_notify($4, $1)::text AS notified FROM ins`,
      [session, dedupeKey, text, inboxChannel(this.#store.schema)],
    );
    if (rows.length > 0) return { id: Number(rows[0]!.id), duplicate: false };
    const earlier = await sql.unsafe(`SELECT id FROM ${tables.inbox} WHERE dedupe_key = $1`, [
      dedupeKey,
    ]);
    return { id: Number(earlier[0]?.id), duplicate: true };
  }

  /**
   * Takes the lease of a session that has pending messages and no live owner (oldest message
   * first); null when there is none. The caller renews the lease with the store while working.
   */
  async claim(owner: string, ttlMs: number): Promise<InboxClaim | null> {
    return (await this.claimMany(owner, ttlMs, 1))[0] ?? null;
  }

  /**
   * Takes the leases of up to `limit` sessions that have pending messages and no live owner, in
   * one statement (the session with the oldest message first), with their pending messages. A
   * session another instance claims at the same time is skipped, never shared. `share` (default
   * 1) takes at most 1/share of the waiting sessions (at least one), so instances that claim at
   * the same time split them. `latestEvent` also reads the newest event of a name on each
   * claimed session's tape (see {@link ClaimOptions}).
   */
  async claimMany(
    owner: string,
    ttlMs: number,
    limit: number,
    options: ClaimOptions = {},
  ): Promise<InboxClaim[]> {
    if (typeof owner !== "string" || owner === "") {
      throw new TypeError("Cannot claim: owner must be a non-empty string");
    }
    if (!Number.isInteger(limit) || limit < 1) {
      throw new TypeError(`Cannot claim: limit must be an integer >= 1, got ${limit}`);
    }
    const { open, tables } = pgStoreInternals(this.#store);
    const share = options.share ?? 1;
    if (typeof share !== "number" || !(share >= 1)) {
      throw new TypeError(`Cannot claim: share must be a number >= 1, got ${share}`);
    }
    return await pgClaimSessions(await open(), tables, owner, ttlMs, limit, { ...options, share });
  }

  /** The pending messages of `session`, oldest first. */
  async pending(session: string): Promise<InboxMessage[]> {
    const { open, tables } = pgStoreInternals(this.#store);
    const rows = await (await open()).unsafe(
      `SELECT id, session, body::text AS body FROM ${tables.inbox}
      WHERE session = $1 AND state = 'pending' ORDER BY id`,
      [session],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      session: String(row.session),
      body: JSON.parse(String(row.body)),
    }));
  }

  /**
   * The newest pending message id of each of `sessions` that has one, in one query (a held
   * session whose newest id is above the last it took has news).
   */
  async pendingHeads(sessions: readonly string[]): Promise<Map<string, number>> {
    const heads = new Map<string, number>();
    if (sessions.length === 0) return heads;
    const { open, tables } = pgStoreInternals(this.#store);
    const rows = await (await open()).unsafe(
      `SELECT session, max(id) AS head FROM ${tables.inbox}
      WHERE session = ANY($1::text[]) AND state = 'pending' GROUP BY session`,
      [[...sessions]],
    );
    for (const row of rows) heads.set(String(row.session), Number(row.head));
    return heads;
  }

  /**
   * Ends a turn: appends `entries` to `tape` fenced by `lease` and marks `messageIds` done, in
   * one transaction. After a takeover nothing changes and a `temporary` BubError with
   * `details.reason === "lease_lost"` is thrown (the new owner runs the messages again). With
   * `release` (and entries), the same transaction gives the lease up when the session has no
   * other pending message; `released` tells whether it did (else the session has more).
   */
  async complete(
    lease: TapeLease,
    messageIds: readonly number[],
    tape: string,
    entries: readonly TapeEntry[],
    options: { release?: boolean } = {},
  ): Promise<{ released: boolean }> {
    const columns = appendColumns(tape, entries);
    const { retry, tables } = pgStoreInternals(this.#store);
    const lost = new BubError(
      "temporary",
      `Cannot complete messages of ${lease.key}: the lease (epoch ${lease.epoch}) of ${lease.owner} was lost`,
      { reason: "lease_lost", key: lease.key, owner: lease.owner, epoch: lease.epoch, tape },
    );
    const what = `complete messages of ${lease.key}`;
    if (entries.length > 0) {
      // One statement: the fenced append and the completion commit together or not at all;
      // retried while the server is unreachable, never twice (the batch token).
      const complete = { inbox: tables.inbox, ids: messageIds, release: options.release };
      const batch = randomUUID();
      const result = await retry(what, async (sql, attempt) => {
        const done = await pgAppendReleasing(sql, tables, tape, columns, {
          fence: lease,
          complete,
          batch,
        });
        if (done.inserted > 0 || attempt === 1) return done;
        if (!await pgBatchLanded(sql, tables, tape, batch)) return done;
        // The first attempt committed before its connection dropped: did it release?
        const held = options.release === true &&
          (await sql.unsafe(
              `SELECT 1 FROM ${tables.leases} WHERE key = $1 AND owner = $2 AND epoch = $3`,
              [lease.key, lease.owner, lease.epoch],
            )).length > 0;
        return { inserted: entries.length, released: options.release === true && !held };
      });
      if (result.inserted === 0) throw lost;
      return { released: result.released };
    }
    await retry(what, (sql) => this.#completeOnly(sql, tables, lease, messageIds, lost));
    return { released: false };
  }

  async #completeOnly(
    sql: PgSql,
    tables: PgTables,
    lease: TapeLease,
    messageIds: readonly number[],
    lost: BubError,
  ): Promise<void> {
    await sql.begin(async (tx) => {
      const held = await tx.unsafe(
        `SELECT 1 FROM ${tables.leases} WHERE key = $1 AND owner = $2 AND epoch = $3 FOR SHARE`,
        [lease.key, lease.owner, lease.epoch],
      );
      if (held.length === 0) throw lost;
      await tx.unsafe(
        `UPDATE ${tables.inbox} SET state = 'done', done_at = clock_timestamp()
        WHERE id = ANY($1::bigint[]) AND session = $2 AND state = 'pending'`,
        [messageIds.map(String), lease.key],
      );
    });
  }

  /**
   * Calls `onSession(sessionId)` for every enqueued message (a hint: notifications are lost while
   * the connection reconnects, so owners also poll). Resolves once listening.
   */
  async listen(onSession: (session: string) => void): Promise<{ close(): Promise<void> }> {
    const sql = await pgStoreInternals(this.#store).open();
    const subscription = await sql.listen(
      inboxChannel(this.#store.schema),
      (payload) => onSession(payload),
    );
    return { close: () => subscription.unlisten() };
  }
}
