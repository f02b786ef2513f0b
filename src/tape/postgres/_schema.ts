/**
 * The PostgreSQL tape schema: its tables, the migrations that build them and the version table
 * that records how far a database got.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import type { PgSql } from "./_client.ts";

/** The schema version this code writes and understands. */
export const PG_SCHEMA_VERSION = 5;

/** Fully qualified table names of one schema. */
export interface PgTables {
  /** `<schema>.bub_schema_version`: one row, the version. */
  readonly version: string;
  /**
   * `<schema>.bub_tapes`: one row per tape, `head` = its last id (the sequence and row lock),
   * `batch` = the token of its last append (a UUID; see `_append.ts`).
   */
  readonly tapes: string;
  /** `<schema>.bub_tape_entries`: the entries, primary key `(tape, id)`. */
  readonly entries: string;
  /** `<schema>.bub_leases`: one row per leased key (owner, epoch, expiry). */
  readonly leases: string;
  /** `<schema>.bub_inbox`: inbound messages per session, deduplicated by key. */
  readonly inbox: string;
  /** `<schema>.bub_forks`: one row per fork journal of a tape (owner, `head` = its last seq). */
  readonly forks: string;
  /** `<schema>.bub_fork_entries`: the journaled entries, primary key `(tape, fork, seq)`. */
  readonly forkEntries: string;
  /**
   * `<schema>.bub_chat_subscriptions`: the chat threads (`slack:<channel>:<ts>`) the bot follows
   * without a mention, shared by a cluster's instances.
   */
  readonly chatSubscriptions: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** The table names in `schema`; a schema name that is not a plain lower-case identifier throws. */
export function pgTables(schema: string): PgTables {
  if (typeof schema !== "string" || !IDENTIFIER.test(schema)) {
    throw new TypeError(
      `Cannot use PostgreSQL schema ${
        JSON.stringify(schema)
      }: expected a lower-case identifier (letters, digits, _)`,
    );
  }
  const q = `"${schema}"`;
  return {
    version: `${q}.bub_schema_version`,
    tapes: `${q}.bub_tapes`,
    entries: `${q}.bub_tape_entries`,
    leases: `${q}.bub_leases`,
    inbox: `${q}.bub_inbox`,
    forks: `${q}.bub_forks`,
    forkEntries: `${q}.bub_fork_entries`,
    chatSubscriptions: `${q}.bub_chat_subscriptions`,
  };
}

/** Migration n (1-based) brings a database from version n-1 to n. */
function _migrations(t: PgTables): string[][] {
  return [
    [
      `CREATE TABLE ${t.tapes} (name text PRIMARY KEY, head bigint NOT NULL DEFAULT 0)`,
      `CREATE TABLE ${t.entries} (
        tape text NOT NULL, id bigint NOT NULL, kind text NOT NULL,
        anchor text, event text, payload json NOT NULL, meta json NOT NULL, date text NOT NULL,
        PRIMARY KEY (tape, id))`,
      // Anchors by name (afterAnchor, betweenAnchors) and by position (lastAnchor).
      `CREATE INDEX bub_tape_entries_anchor_name ON ${t.entries} (tape, anchor, id)
        WHERE anchor IS NOT NULL`,
      `CREATE INDEX bub_tape_entries_anchor_id ON ${t.entries} (tape, id) WHERE anchor IS NOT NULL`,
      // The newest event of a name (latestEvents).
      `CREATE INDEX bub_tape_entries_event ON ${t.entries} (tape, event, id) WHERE event IS NOT NULL`,
    ],
    [
      `CREATE TABLE ${t.leases} (
        key text PRIMARY KEY, owner text, epoch bigint NOT NULL, lease_until timestamptz NOT NULL)`,
      `CREATE TABLE ${t.inbox} (
        id bigserial PRIMARY KEY, session text NOT NULL, dedupe_key text UNIQUE,
        body json NOT NULL, state text NOT NULL DEFAULT 'pending',
        created timestamptz NOT NULL DEFAULT clock_timestamp(), done_at timestamptz)`,
      `CREATE INDEX bub_inbox_pending ON ${t.inbox} (session, id) WHERE state = 'pending'`,
    ],
    [
      // The token of the tape's last batch: a retried append finds whether it committed.
      `ALTER TABLE ${t.tapes} ADD COLUMN IF NOT EXISTS batch uuid`,
    ],
    [
      // Fork journals: a turn's in-flight entries until its merge (see `_journal.ts`).
      `CREATE TABLE IF NOT EXISTS ${t.forks} (
        tape text NOT NULL, fork text NOT NULL, owner text NOT NULL, head bigint NOT NULL,
        batch uuid, created timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (tape, fork))`,
      `CREATE TABLE IF NOT EXISTS ${t.forkEntries} (
        tape text NOT NULL, fork text NOT NULL, seq bigint NOT NULL, kind text NOT NULL,
        anchor text, event text, payload json NOT NULL, meta json NOT NULL, date text NOT NULL,
        PRIMARY KEY (tape, fork, seq))`,
    ],
    [
      // The Chat SDK's thread subscriptions of a cluster (`_shared_state.ts` in channels/chat).
      `CREATE TABLE IF NOT EXISTS ${t.chatSubscriptions} (
        thread text PRIMARY KEY, created timestamptz NOT NULL DEFAULT clock_timestamp())`,
    ],
  ];
}

/**
 * Creates or migrates the schema (under a transaction-scoped advisory lock, so concurrent first
 * uses from several processes run it once). A database newer than {@link PG_SCHEMA_VERSION} is
 * a `config` BubError.
 */
export async function migratePg(sql: PgSql, schema: string): Promise<void> {
  const t = pgTables(schema);
  await sql.begin(async (tx) => {
    await tx.unsafe("SELECT pg_advisory_xact_lock(hashtext($1))", [`bub_tape_schema:${schema}`]);
    // CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists.
    const found = await tx.unsafe("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    if (found.length === 0) await tx.unsafe(`CREATE SCHEMA "${schema}"`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${t.version} (version integer NOT NULL)`);
    const rows = await tx.unsafe(`SELECT max(version) AS version FROM ${t.version}`);
    const current = Number(rows[0]?.version ?? 0);
    if (current > PG_SCHEMA_VERSION) {
      throw new BubError(
        "config",
        `Cannot use the PostgreSQL tape store in schema "${schema}": its schema version ${current} is newer than this @bub/core understands (${PG_SCHEMA_VERSION}); upgrade @bub/core`,
        { schema, version: current, supported: PG_SCHEMA_VERSION },
      );
    }
    if (current === PG_SCHEMA_VERSION) return;
    const migrations = _migrations(t);
    for (let v = current; v < PG_SCHEMA_VERSION; v++) {
      for (const statement of migrations[v]!) await tx.unsafe(statement);
    }
    await tx.unsafe(`DELETE FROM ${t.version}`);
    await tx.unsafe(`INSERT INTO ${t.version} (version) VALUES ($1)`, [PG_SCHEMA_VERSION]);
  });
}
