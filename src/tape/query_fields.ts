/**
 * The fields of a tape query, apart from the `TapeQuery` builder: what stores read when they
 * evaluate one. A leaf, so the store contract and the query builder need not import each other.
 *
 * @module
 */

/**
 * The fields of a `TapeQuery`, read by store implementations.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, TapeQuery } from "@bub/core";
 * import type { TapeQueryFields } from "@bub/core/tape";
 * const fields: TapeQueryFields = new TapeQuery("t", new InMemoryTapeStore()).kinds("message").limit(5);
 * assert.deepEqual(fields.kindList, ["message"]);
 * assert.equal(fields.limitCount, 5);
 * ```
 */
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

/** The fields of a query without filters: every entry of the tape. */
export const NO_FILTERS: TapeQueryFields = {
  text: "",
  afterAnchorName: null,
  afterLast: false,
  betweenAnchorNames: null,
  betweenDateRange: null,
  kindList: [],
  limitCount: null,
};

/**
 * A query as a store sees it: the tape name plus the filters (a `TapeQuery` is one).
 *
 * @example
 * ```ts
 * import { InMemoryTapeStore, TapeQuery, type TapeStore } from "@bub/core";
 * import type { TapeQuerySpec } from "@bub/core/tape";
 * const store: TapeStore = new InMemoryTapeStore();
 * const spec: TapeQuerySpec = new TapeQuery("t", store).query("error");
 * const entries = await store.fetchAll(spec); // what a custom store receives
 * ```
 */
export type TapeQuerySpec = TapeQueryFields & { readonly tape: string };
