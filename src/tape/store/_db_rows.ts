/**
 * The row code shared by the SQLite and PostgreSQL stores, which keep an entry as the columns
 * `id`, `kind`, `anchor` (an anchor's name), `payload` (JSON text), `meta` (JSON text) and `date`
 * (PostgreSQL also `event`, an event's name): a row's entry, an entry's columns, and the
 * evaluation of the rows a store read for a query.
 *
 * @module
 */
import { isRecord } from "../../_internal/object.ts";
import { deepFreeze, pyDumps } from "../../_internal/json.ts";
import { type EntryView, evaluateQuery, type QuerySpec } from "./_evaluate.ts";
import { searchPass } from "./_search.ts";
import { type TapeEntry, validateEntry } from "../entry.ts";

/**
 * The frozen entry of `row` (a meta that is not an object becomes `{}`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rowEntry } from "./_db_rows.ts";
 * const entry = rowEntry({ id: "3", kind: "event", payload: '{"a":1}', meta: "null", date: "d" });
 * assert.ok(entry.id === 3 && Object.keys(entry.meta).length === 0);
 * ```
 */
export function rowEntry(row: Readonly<Record<string, unknown>>): TapeEntry {
  const meta = JSON.parse(String(row.meta));
  return deepFreeze({
    id: Number(row.id),
    kind: String(row.kind),
    payload: JSON.parse(String(row.payload)),
    meta: isRecord(meta) ? meta : {},
    date: String(row.date),
  });
}

/** The columns of an entry to append (all but the id, which the store assigns). */
export interface EntryColumns {
  /** The entry's kind. */
  kind: string;
  /** An anchor's name ("" when it has none); null for other kinds. */
  anchor: string | null;
  /** An event's name; null for other kinds or an event without a string name. */
  event: string | null;
  /** The payload as JSON text. */
  payload: string;
  /** The meta as JSON text. */
  meta: string;
  /** The date. */
  date: string;
}

/**
 * Validates `entry` for `tape` and returns its columns; throws a TypeError naming the tape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { entryColumns } from "./_db_rows.ts";
 * const columns = entryColumns("t", { id: 0, kind: "anchor", payload: { name: "a" }, meta: {}, date: "2026-01-01T00:00:00+00:00" });
 * assert.ok(columns.anchor === "a" && columns.event === null);
 * ```
 */
export function entryColumns(tape: string, entry: TapeEntry): EntryColumns {
  const checked = validateEntry(tape, entry);
  try {
    const name = checked.payload.name;
    return {
      kind: checked.kind,
      anchor: checked.kind === "anchor" ? (typeof name === "string" ? name : "") : null,
      event: checked.kind === "event" && typeof name === "string" ? name : null,
      payload: pyDumps(checked.payload),
      meta: pyDumps(checked.meta),
      date: checked.date,
    };
  } catch (error) {
    throw new TypeError(
      `Cannot append entry to tape ${JSON.stringify(tape)}: ${(error as Error).message}`,
    );
  }
}

/**
 * Evaluates `query` over the rows a store read for it: the query's anchor slice (so its anchor
 * filters are already applied), oldest first; a text query takes the newest-first search pass.
 */
export async function evaluateSliceRows(
  rows: readonly Readonly<Record<string, unknown>>[],
  query: QuerySpec,
): Promise<TapeEntry[]> {
  const view: EntryView = { entries: rows.map(rowEntry), anchors: [] };
  const rest: QuerySpec = {
    ...query,
    tape: query.tape,
    afterLast: false,
    afterAnchorName: null,
    betweenAnchorNames: null,
  };
  if (query.text) return await searchPass(evaluateQuery(view, rest, { limit: false }), query);
  return evaluateQuery(view, rest);
}
