/**
 * The entry of a database row, shared by the SQLite and PostgreSQL stores: both keep an entry as
 * the columns `id`, `kind`, `payload` (JSON text), `meta` (JSON text) and `date`.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { deepFreeze } from "./_json.ts";
import type { TapeEntry } from "./entry.ts";

/**
 * The frozen entry of `row` (a meta that is not an object becomes `{}`).
 *
 * @example
 * ```ts
 * import { rowEntry } from "./_row_entry.ts";
 * const entry = rowEntry({ id: "3", kind: "event", payload: '{"a":1}', meta: "null", date: "d" });
 * console.assert(entry.id === 3 && Object.keys(entry.meta).length === 0);
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
