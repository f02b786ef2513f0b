/**
 * Fork journals of `SqliteTapeStore` (see `../fork_journal.ts`): a fork's entries in
 * `tape_fork_entries` (one row per entry, numbered per fork) under a `tape_forks` row, each
 * append one transaction; the commit copies them into `tape_entries` with the tape's next ids
 * and deletes them in one transaction, so the tape gets all of a fork or none, once.
 *
 * @module
 */
import { rowEntry } from "../store/_db_rows.ts";
import type { PendingFork } from "../fork_journal.ts";
import type { SqliteDatabase } from "./_driver.ts";

/** The journal tables (created with the store's schema). */
export const SQLITE_JOURNAL_SCHEMA = `
CREATE TABLE IF NOT EXISTS tape_forks (
  fork TEXT PRIMARY KEY, tape TEXT NOT NULL, owner TEXT NOT NULL, created TEXT NOT NULL,
  head INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tape_forks_tape ON tape_forks (tape, created);
CREATE TABLE IF NOT EXISTS tape_fork_entries (
  fork TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, anchor TEXT,
  payload TEXT NOT NULL, meta TEXT NOT NULL, date TEXT NOT NULL,
  PRIMARY KEY (fork, seq)
) WITHOUT ROWID;
`;

/** Runs `fn` in one `BEGIN IMMEDIATE` transaction (rolled back when it throws). */
export function sqliteTransaction<T>(db: SqliteDatabase, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // nothing to roll back
    }
    throw error;
  }
}

/** Appends `rows` (kind, anchor, payload, meta, date) to the journal of `fork`, made when new. */
export function sqliteJournalAppend(
  db: SqliteDatabase,
  tape: string,
  fork: string,
  owner: string,
  rows: readonly unknown[][],
): void {
  sqliteTransaction(db, () => {
    db.prepare(
      "INSERT OR IGNORE INTO tape_forks (fork, tape, owner, created) VALUES (?, ?, ?, ?)",
    ).run(fork, tape, owner, new Date().toISOString());
    const found = db.prepare("SELECT head FROM tape_forks WHERE fork = ?").get(fork);
    let seq = Number(found?.head ?? 0);
    const insert = db.prepare(
      "INSERT INTO tape_fork_entries (fork, seq, kind, anchor, payload, meta, date) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    for (const row of rows) insert.run(fork, ++seq, ...row);
    db.prepare("UPDATE tape_forks SET head = ? WHERE fork = ?").run(seq, fork);
  });
}

/**
 * Moves the journal of `fork` into `tape` (its entries, then `extra` rows, with the tape's next
 * ids) and deletes it, in one transaction; nothing when the journal is gone (committed).
 */
export function sqliteJournalCommit(
  db: SqliteDatabase,
  tape: string,
  fork: string,
  extra: readonly unknown[][],
): void {
  sqliteTransaction(db, () => {
    const found = db.prepare("SELECT head FROM tape_forks WHERE fork = ? AND tape = ?").get(
      fork,
      tape,
    );
    if (!found) return;
    const last = db.prepare("SELECT max(id) AS id FROM tape_entries WHERE tape = ?").get(tape);
    const base = Number(last?.id ?? 0);
    db.prepare(
      `INSERT INTO tape_entries (tape, id, kind, anchor, payload, meta, date)
      SELECT ?, ? + row_number() OVER (ORDER BY seq), kind, anchor, payload, meta, date
      FROM tape_fork_entries WHERE fork = ? ORDER BY seq`,
    ).run(tape, base, fork);
    const moved = db.prepare("SELECT count(*) AS n FROM tape_fork_entries WHERE fork = ?").get(
      fork,
    );
    let id = base + Number(moved?.n ?? 0);
    const insert = db.prepare(
      "INSERT INTO tape_entries (tape, id, kind, anchor, payload, meta, date) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    for (const row of extra) insert.run(tape, ++id, ...row);
    _drop(db, fork);
  });
}

function _drop(db: SqliteDatabase, fork: string): void {
  db.prepare("DELETE FROM tape_fork_entries WHERE fork = ?").run(fork);
  db.prepare("DELETE FROM tape_forks WHERE fork = ?").run(fork);
}

/** Deletes the journal of `fork`. */
export function sqliteJournalDiscard(db: SqliteDatabase, fork: string): void {
  sqliteTransaction(db, () => _drop(db, fork));
}

/** The journals of `tape`, oldest first, with their entries (`alive` left null). */
export function sqliteJournalPending(db: SqliteDatabase, tape: string): PendingFork[] {
  const forks = db.prepare(
    "SELECT fork, owner FROM tape_forks WHERE tape = ? ORDER BY created, fork",
  ).all(tape);
  const entries = db.prepare(
    "SELECT seq AS id, kind, payload, meta, date FROM tape_fork_entries WHERE fork = ? ORDER BY seq",
  );
  return forks.map((row) => ({
    fork: String(row.fork),
    tape,
    owner: String(row.owner),
    alive: null,
    entries: entries.all(row.fork).map(rowEntry),
  }));
}
