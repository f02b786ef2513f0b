/**
 * Private: reading a fork's managed tape (§5.9). A query gets the parent's entries (none once the
 * fork reset the tape), then the buffered ones, cut as the query asks: its kinds, what follows the
 * last anchor or a named one, its limit. The newest events by name come from the buffer first,
 * then from the parent for the names the buffer lacks.
 *
 * @module
 */
import { BubError } from "../kernel/errors.ts";
import type { TapeEntry } from "./entry.ts";
import { latestEvents, pickLatestEvents } from "./latest_events.ts";
import type { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";

/**
 * The entries of a managed tape for `query`: `parent`'s (null: the fork reset the tape; a
 * `BubError` reading it counts as none) followed by `buffered`.
 */
export async function fetchManaged(
  parent: TapeStore | null,
  buffered: readonly TapeEntry[],
  query: TapeQuery,
): Promise<TapeEntry[]> {
  let result: TapeEntry[] = [];
  if (parent !== null) {
    try {
      result = await parent.fetchAll(query);
    } catch (error) {
      if (!BubError.isInstance(error)) throw error;
    }
  }
  const kinds = query.kindList.length ? new Set(query.kindList) : null;
  for (const entry of buffered) {
    if (
      entry.kind === "anchor" &&
      (query.afterLast ||
        (query.afterAnchorName !== null && entry.payload.name === query.afterAnchorName))
    ) {
      result = [];
      continue;
    }
    if (kinds && !kinds.has(entry.kind)) continue;
    result.push(entry);
  }
  return query.limitCount === null ? result : result.slice(0, query.limitCount);
}

/**
 * The newest event of each of `names` on a managed tape: `buffered` ones first, then `parent`'s
 * (null: the fork reset the tape) for the rest.
 */
export async function latestManagedEvents(
  parent: TapeStore | null,
  tape: string,
  buffered: readonly TapeEntry[],
  names: readonly string[],
): Promise<TapeEntry[]> {
  const local = pickLatestEvents(buffered, names);
  const found = new Set(local.map((entry) => entry.payload.name));
  const rest = names.filter((name) => !found.has(name));
  if (rest.length === 0 || parent === null) return local;
  return [...await latestEvents(parent, tape, rest), ...local];
}
