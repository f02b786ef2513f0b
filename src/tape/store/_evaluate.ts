/**
 * The in-memory query evaluation shared by the memory, file and SQLite stores (§5.5): anchor
 * slice, date range, text, kinds, limit, in that order.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import { parseBoundaryMicros, parseIsoMicros } from "../../_internal/utc_text.ts";
import { pyDumps } from "../../_internal/json.ts";
import type { TapeEntry } from "../entry.ts";
import type { TapeQuerySpec } from "../query_fields.ts";

/** The query fields the evaluator reads (a `TapeQuery` is one). */
export type QuerySpec = TapeQuerySpec;

/** The entries of one tape plus the positions of its anchors (ascending). */
export interface EntryView {
  /** Entries in tape order. */
  readonly entries: readonly TapeEntry[];
  /** Positions in `entries` of every `anchor` entry, ascending. */
  readonly anchors: readonly number[];
}

/** Positions of anchor entries. */
export function anchorPositions(entries: readonly TapeEntry[]): number[] {
  const out: number[] = [];
  entries.forEach((entry, i) => {
    if (entry.kind === "anchor") out.push(i);
  });
  return out;
}

function _anchorName(entry: TapeEntry | undefined): unknown {
  return entry?.payload.name;
}

function _lastNamed(view: EntryView, name: string, before = Infinity): number {
  for (let i = view.anchors.length - 1; i >= 0; i--) {
    const pos = view.anchors[i]!;
    if (pos < before && _anchorName(view.entries[pos]) === name) return pos;
  }
  return -1;
}

function _notFound(tape: string, name: string): BubError {
  return new BubError("not_found", `Anchor '${name}' was not found.`, { tape, anchor: name });
}

/** The `[start, end)` positions selected by the anchor filters of `query`. */
export function anchorSlice(view: EntryView, query: QuerySpec): [number, number] {
  const total = view.entries.length;
  if (query.betweenAnchorNames) {
    const [s, e] = query.betweenAnchorNames;
    const start = _lastNamed(view, s);
    if (start < 0) throw _notFound(query.tape, s);
    const end = view.anchors.find((pos) => pos > start && _anchorName(view.entries[pos]) === e);
    if (end === undefined) throw _notFound(query.tape, e);
    return [start + 1, end];
  }
  if (query.afterLast) {
    const last = view.anchors[view.anchors.length - 1];
    if (last === undefined) {
      throw new BubError("not_found", "No anchors found in tape.", { tape: query.tape });
    }
    return [last + 1, total];
  }
  if (query.afterAnchorName !== null) {
    const pos = _lastNamed(view, query.afterAnchorName);
    if (pos < 0) throw _notFound(query.tape, query.afterAnchorName);
    return [pos + 1, total];
  }
  return [0, total];
}

/** The inclusive microsecond range of a date filter, validated. */
export function dateRange(query: QuerySpec): [number, number] | null {
  if (!query.betweenDateRange) return null;
  const [startValue, endValue] = query.betweenDateRange;
  const start = parseBoundaryMicros(startValue, false);
  const end = parseBoundaryMicros(endValue, true);
  for (const [value, parsed] of [[startValue, start], [endValue, end]] as const) {
    if (parsed === null) {
      throw new BubError("invalid_input", `Invalid ISO date or datetime: '${String(value)}'.`, {
        tape: query.tape,
      });
    }
  }
  if (start! > end!) {
    throw new BubError("invalid_input", "Start date must be earlier than or equal to end date.", {
      tape: query.tape,
    });
  }
  return [start!, end!];
}

/** Casefolded JSON text of an entry's `{date, kind, meta, payload}` (keys sorted, ASCII). */
export function entrySearchText(entry: TapeEntry): string {
  return pyDumps(
    { date: entry.date, kind: entry.kind, meta: entry.meta, payload: entry.payload },
    { sortKeys: true, ensureAscii: true, fallback: String },
  ).toLowerCase();
}

/** Keeps the entries that pass the date, text and kinds filters (no anchor slice, no limit). */
export function filterEntries(
  entries: Iterable<TapeEntry>,
  query: QuerySpec,
  options: { limit?: boolean } = {},
): TapeEntry[] {
  const range = dateRange(query);
  const needle = query.text ? query.text.toLowerCase() : "";
  const kinds = query.kindList.length ? new Set(query.kindList) : null;
  const max = options.limit === false ? null : query.limitCount;
  const out: TapeEntry[] = [];
  if (max === 0) return out;
  for (const entry of entries) {
    if (range) {
      const at = parseIsoMicros(entry.date);
      if (at === null || at < range[0] || at > range[1]) continue;
    }
    if (needle && !entrySearchText(entry).includes(needle)) continue;
    if (kinds && !kinds.has(entry.kind)) continue;
    out.push(entry);
    if (max !== null && out.length >= max) break;
  }
  return out;
}

function* _range(entries: readonly TapeEntry[], start: number, end: number): Iterable<TapeEntry> {
  for (let i = start; i < end; i++) yield entries[i]!;
}

/** Evaluates `query` against a view (§5.5). `limit: false` skips the limit. */
export function evaluateQuery(
  view: EntryView,
  query: QuerySpec,
  options: { limit?: boolean } = {},
): TapeEntry[] {
  const [start, end] = anchorSlice(view, query);
  return filterEntries(_range(view.entries, start, end), query, options);
}
