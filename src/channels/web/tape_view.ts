/**
 * The tape data the web console shows: every tape of the store with its entry count and last
 * activity (newest first), and one tape's entries, optionally searched (`TapeQuery.query`).
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import type { TapeEntry } from "../../tape/entry.ts";
import { TapeQuery } from "../../tape/query.ts";
import type { TapeStore } from "../../tape/store.ts";

/** One row of the tape list. */
export interface TapeSummary {
  /** The tape name. */
  name: string;
  /** How many entries it holds. */
  entries: number;
  /** The date of its newest entry, or null when empty. */
  last_activity: string | null;
}

/** Every tape of `store`, newest activity first (reads each tape once). */
export async function tapeSummaries(store: TapeStore): Promise<TapeSummary[]> {
  const names = await store.listTapes();
  const rows: TapeSummary[] = [];
  for (const name of names) {
    const entries = await store.fetchAll(new TapeQuery(name, store));
    rows.push({ name, entries: entries.length, last_activity: entries.at(-1)?.date ?? null });
  }
  return rows.sort((a, b) =>
    (b.last_activity ?? "").localeCompare(a.last_activity ?? "") || a.name.localeCompare(b.name)
  );
}

/** The entries of tape `name`, only those matching `search` when given (case-insensitive). */
export async function tapeEntries(
  store: TapeStore,
  name: string,
  search?: string | null,
): Promise<TapeEntry[]> {
  const names = await store.listTapes();
  if (!names.includes(name)) {
    throw new BubError("not_found", `No tape named ${JSON.stringify(name)}`);
  }
  let query = new TapeQuery(name, store);
  if (search) query = query.query(search);
  return await query.all();
}
