/**
 * The fields of a tape query, apart from the `TapeQuery` builder: what stores read when they
 * evaluate one. A leaf, so the store contract and the query builder need not import each other.
 *
 * @module
 */

/** The fields of a `TapeQuery`, read by store implementations. */
export interface TapeQueryFields {
  /** Full-text filter, "" for none. */
  readonly text: string;
  /** Entries after the last anchor with this name, or null. */
  readonly afterAnchorName: string | null;
  /** Entries after the last anchor of any name. */
  readonly afterLast: boolean;
  /** Entries strictly between the last anchor `[0]` and the next anchor `[1]`, or null. */
  readonly betweenAnchorNames: readonly [string, string] | null;
  /** Inclusive date range, or null. */
  readonly betweenDateRange: readonly [string | Date, string | Date] | null;
  /** Kinds to keep; empty keeps all. */
  readonly kindList: readonly string[];
  /** At most this many entries, or null. */
  readonly limitCount: number | null;
}

/** A query as a store sees it: the tape name plus the filters (a `TapeQuery` is one). */
export type TapeQuerySpec = TapeQueryFields & { readonly tape: string };
