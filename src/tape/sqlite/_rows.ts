/**
 * The statements of `SqliteTapeStore`: an entry from its row, a batch inserted in one
 * transaction, the newest events by name, and the rows of a query's anchor slice.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import { rowEntry } from "../store/_db_rows.ts";
import type { SqliteDatabase } from "./_driver.ts";
import type { TapeEntry } from "../entry.ts";
import type { TapeQuerySpec } from "../query_fields.ts";

/**
 * Inserts `rows` as the next entries of `tape` in one transaction (rolled back on failure). With
 * `lastId`, only when the tape's newest id is still that (else nothing is written): false.
 */
export function sqliteInsert(
  db: SqliteDatabase,
  tape: string,
  rows: unknown[][],
  lastId: number | null = null,
): boolean {
  db.exec("BEGIN IMMEDIATE");
  try {
    const last = db.prepare("SELECT max(id) AS id FROM tape_entries WHERE tape = ?").get(tape);
    let id = Number(last?.id ?? 0);
    if (lastId !== null && id !== lastId) {
      db.exec("ROLLBACK");
      return false;
    }
    const insert = db.prepare(
      "INSERT INTO tape_entries (tape, id, kind, anchor, payload, meta, date) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    for (const row of rows) insert.run(tape, ++id, ...row);
    db.exec("COMMIT");
    return true;
  } catch (error) {
    // The failure that matters is the first one (a ROLLBACK after a failed COMMIT may find no
    // transaction left).
    try {
      db.exec("ROLLBACK");
    } catch {
      // nothing to roll back
    }
    throw error;
  }
}

function _anchorId(
  db: SqliteDatabase,
  tape: string,
  name: string | null,
  after = 0,
): number | null {
  const row = name === null
    ? db.prepare("SELECT max(id) AS id FROM tape_entries WHERE tape = ? AND anchor IS NOT NULL")
      .get(tape)
    : db.prepare(
      "SELECT max(id) AS id FROM tape_entries WHERE tape = ? AND anchor = ? AND id > ?",
    )
      .get(tape, name, after);
  return row?.id === null || row?.id === undefined ? null : Number(row.id);
}

/**
 * The newest event of each of `names`: per name, the tape's events whose payload holds the
 * name's JSON form, newest first on the primary key, checked after parsing (pages of 16).
 */
export function sqliteLatestEvents(
  db: SqliteDatabase,
  tape: string,
  names: readonly string[],
): TapeEntry[] {
  const page = db.prepare(
    "SELECT id, kind, payload, meta, date FROM tape_entries WHERE tape = ? AND id < ? AND kind = 'event' AND instr(payload, ?) > 0 ORDER BY id DESC LIMIT 16",
  );
  const found: TapeEntry[] = [];
  for (const name of new Set(names)) {
    const needle = JSON.stringify(name);
    let before = Number.MAX_SAFE_INTEGER;
    search: for (;;) {
      const rows = page.all(tape, before, needle);
      for (const row of rows) {
        const entry = rowEntry(row);
        if (entry.payload.name === name) {
          found.push(entry);
          break search;
        }
        before = entry.id;
      }
      if (rows.length < 16) break;
    }
  }
  return found.sort((a, b) => a.id - b.id);
}

/** The rows of the query's anchor slice (and kinds, and a plain limit), oldest first. */
export function sqliteSliceRows(
  db: SqliteDatabase,
  query: TapeQuerySpec,
): Record<string, unknown>[] {
  const tape = query.tape;
  // Resolve the anchor slice in SQL, then let the shared evaluator apply the rest.
  let low = 0;
  let high = Number.MAX_SAFE_INTEGER;
  const notFound = (name: string) =>
    new BubError("not_found", `Anchor '${name}' was not found.`, { tape, anchor: name });
  if (query.betweenAnchorNames) {
    const [s, e] = query.betweenAnchorNames;
    const start = _anchorId(db, tape, s);
    if (start === null) throw notFound(s);
    const end = db.prepare(
      "SELECT min(id) AS id FROM tape_entries WHERE tape = ? AND anchor = ? AND id > ?",
    ).get(tape, e, start);
    if (end?.id === null || end?.id === undefined) throw notFound(e);
    [low, high] = [start, Number(end.id)];
  } else if (query.afterLast) {
    const last = _anchorId(db, tape, null);
    if (last === null) {
      throw new BubError("not_found", "No anchors found in tape.", { tape });
    }
    low = last;
  } else if (query.afterAnchorName !== null) {
    const found = _anchorId(db, tape, query.afterAnchorName);
    if (found === null) throw notFound(query.afterAnchorName);
    low = found;
  }
  const kinds = query.kindList;
  const plain = !query.text && !query.betweenDateRange && query.limitCount !== null;
  const rows = db.prepare(
    `SELECT id, kind, payload, meta, date FROM tape_entries WHERE tape = ? AND id > ? AND id < ?${
      kinds.length ? ` AND kind IN (${kinds.map(() => "?").join(", ")})` : ""
    } ORDER BY id${plain ? " LIMIT ?" : ""}`,
  ).all(tape, low, high, ...kinds, ...(plain ? [query.limitCount] : []));
  return rows;
}
