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
  tape TEXT NOT NULL, fork TEXT NOT NULL, owner TEXT NOT NULL, created TEXT NOT NULL,
  head INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tape, fork)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tape_fork_entries (
  tape TEXT NOT NULL, fork TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, anchor TEXT,
  payload TEXT NOT NULL, meta TEXT NOT NULL, date TEXT NOT NULL,
  PRIMARY KEY (tape, fork, seq)
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
      "INSERT OR IGNORE INTO tape_forks (tape, fork, owner, created) VALUES (?, ?, ?, ?)",
    ).run(tape, fork, owner, new Date().toISOString());
    const found = db.prepare("SELECT head FROM tape_forks WHERE tape = ? AND fork = ?").get(
      tape,
      fork,
    );
    let seq = Number(found?.head ?? 0);
    const insert = db.prepare(
      "INSERT INTO tape_fork_entries (tape, fork, seq, kind, anchor, payload, meta, date) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    for (const row of rows) insert.run(tape, fork, ++seq, ...row);
    db.prepare("UPDATE tape_forks SET head = ? WHERE tape = ? AND fork = ?").run(seq, tape, fork);
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
    const found = db.prepare("SELECT head FROM tape_forks WHERE tape = ? AND fork = ?").get(
      tape,
      fork,
    );
    if (!found) return;
    const last = db.prepare("SELECT max(id) AS id FROM tape_entries WHERE tape = ?").get(tape);
    const base = Number(last?.id ?? 0);
    db.prepare(
      `INSERT INTO tape_entries (tape, id, kind, anchor, payload, meta, date)
      SELECT ?, ? + row_number() OVER (ORDER BY seq), kind, anchor, payload, meta, date
      FROM tape_fork_entries WHERE tape = ? AND fork = ? ORDER BY seq`,
    ).run(tape, base, tape, fork);
    const moved = db.prepare(
      "SELECT count(*) AS n FROM tape_fork_entries WHERE tape = ? AND fork = ?",
    ).get(tape, fork);
    let id = base + Number(moved?.n ?? 0);
    const insert = db.prepare(
      "INSERT INTO tape_entries (tape, id, kind, anchor, payload, meta, date) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    for (const row of extra) insert.run(tape, ++id, ...row);
    _drop(db, tape, fork);
  });
}

function _drop(db: SqliteDatabase, tape: string, fork: string): void {
  db.prepare("DELETE FROM tape_fork_entries WHERE tape = ? AND fork = ?").run(tape, fork);
  db.prepare("DELETE FROM tape_forks WHERE tape = ? AND fork = ?").run(tape, fork);
}

/** Deletes the journal of `fork` on `tape`. */
export function sqliteJournalDiscard(db: SqliteDatabase, tape: string, fork: string): void {
  sqliteTransaction(db, () => _drop(db, tape, fork));
}

/** The journals of `tape`, oldest first, with their entries (`alive` left null). */
export function sqliteJournalPending(db: SqliteDatabase, tape: string): PendingFork[] {
  const forks = db.prepare(
    "SELECT fork, owner FROM tape_forks WHERE tape = ? ORDER BY created, fork",
  ).all(tape);
  const entries = db.prepare(
    "SELECT seq AS id, kind, payload, meta, date FROM tape_fork_entries WHERE tape = ? AND fork = ? ORDER BY seq",
  );
  return forks.map((row) => ({
    fork: String(row.fork),
    tape,
    owner: String(row.owner),
    alive: null,
    entries: entries.all(tape, row.fork).map(rowEntry),
  }));
}
