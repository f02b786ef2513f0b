/**
 * The reads of the PostgreSQL tape store: the anchor slice, kinds and a plain limit in SQL (on
 * the anchor and primary-key indexes), the rest by the shared evaluator; the newest events by
 * name on the event index.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import { evaluateSliceRows, rowEntry } from "../store/_db_rows.ts";
import type { PgRow, PgSql } from "./_client.ts";
import type { PgTables } from "./_schema.ts";
import type { TapeEntry } from "../entry.ts";
import type { TapeQuerySpec } from "../query_fields.ts";

const COLUMNS = "id, kind, payload::text AS payload, meta::text AS meta, date";

function _id(rows: PgRow[]): number | null {
  const id = rows[0]?.id;
  return id === null || id === undefined ? null : Number(id);
}

async function _anchorId(
  sql: PgSql,
  t: PgTables,
  tape: string,
  name: string | null,
): Promise<number | null> {
  return _id(
    name === null
      ? await sql.unsafe(
        `SELECT id FROM ${t.entries} WHERE tape = $1 AND anchor IS NOT NULL ORDER BY id DESC LIMIT 1`,
        [tape],
      )
      : await sql.unsafe(
        `SELECT id FROM ${t.entries} WHERE tape = $1 AND anchor = $2 ORDER BY id DESC LIMIT 1`,
        [tape, name],
      ),
  );
}

/** The `(low, high)` id bounds (exclusive) of the query's anchor slice. */
async function _slice(sql: PgSql, t: PgTables, query: TapeQuerySpec): Promise<[number, number]> {
  const tape = query.tape;
  const notFound = (name: string) =>
    new BubError("not_found", `Anchor '${name}' was not found.`, { tape, anchor: name });
  if (query.betweenAnchorNames) {
    const [s, e] = query.betweenAnchorNames;
    const start = await _anchorId(sql, t, tape, s);
    if (start === null) throw notFound(s);
    const end = _id(
      await sql.unsafe(
        `SELECT id FROM ${t.entries} WHERE tape = $1 AND anchor = $2 AND id > $3 ORDER BY id LIMIT 1`,
        [tape, e, start],
      ),
    );
    if (end === null) throw notFound(e);
    return [start, end];
  }
  if (query.afterLast) {
    const last = await _anchorId(sql, t, tape, null);
    if (last === null) throw new BubError("not_found", "No anchors found in tape.", { tape });
    return [last, Number.MAX_SAFE_INTEGER];
  }
  if (query.afterAnchorName !== null) {
    const found = await _anchorId(sql, t, tape, query.afterAnchorName);
    if (found === null) throw notFound(query.afterAnchorName);
    return [found, Number.MAX_SAFE_INTEGER];
  }
  return [0, Number.MAX_SAFE_INTEGER];
}

/** Evaluates `query` (§5.5); text queries use the newest-first search pass. */
export async function pgFetchAll(
  sql: PgSql,
  t: PgTables,
  query: TapeQuerySpec,
): Promise<TapeEntry[]> {
  const [low, high] = await _slice(sql, t, query);
  const kinds = query.kindList;
  const plain = !query.text && !query.betweenDateRange && query.limitCount !== null;
  const params: unknown[] = [query.tape, low, high];
  if (kinds.length) params.push([...kinds]);
  if (plain) params.push(query.limitCount);
  const rows = await sql.unsafe(
    `SELECT ${COLUMNS} FROM ${t.entries} WHERE tape = $1 AND id > $2 AND id < $3${
      kinds.length ? " AND kind = ANY($4::text[])" : ""
    } ORDER BY id${plain ? ` LIMIT $${params.length}` : ""}`,
    params,
  );
  return await evaluateSliceRows(rows, query);
}

/** The newest event of each of `names` (one indexed lookup per name), in tape order. */
export async function pgLatestEvents(
  sql: PgSql,
  t: PgTables,
  tape: string,
  names: readonly string[],
): Promise<TapeEntry[]> {
  const wanted = [...new Set(names)].filter((name) => typeof name === "string");
  if (wanted.length === 0) return [];
  const rows = await sql.unsafe(
    `SELECT e.* FROM unnest($2::text[]) AS w(name), LATERAL (
      SELECT ${COLUMNS} FROM ${t.entries}
      WHERE tape = $1 AND event = w.name ORDER BY id DESC LIMIT 1
    ) AS e ORDER BY e.id`,
    [tape, wanted],
  );
  return rows.map(rowEntry);
}
