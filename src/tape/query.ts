/**
 * `TapeQuery`: an immutable builder of filters over one tape, evaluated by a store.
 *
 * @module
 */
import type { TapeEntry } from "./entry.ts";
import { validateTapeName } from "./entry.ts";
import { NO_FILTERS, type TapeQueryFields } from "./query_fields.ts";
import type { SyncTapeStore, TapeStore } from "./store.ts";

export type { TapeQueryFields } from "./query_fields.ts";

/**
 * The filters of a {@link TapeQuery}: the fields of `TapeQueryFields`, declared there once (this
 * interface adds them to the class, whose constructor sets them).
 */
export interface TapeQuery extends TapeQueryFields {}

/**
 * A query over one tape of one store. Every filter returns a new query; `all()` runs it.
 *
 * @example Messages after the last anchor
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, TapeQuery } from "@bub/core";
 * import { messageEntry, anchorEntry } from "@bub/core/tape";
 * const store = new InMemoryTapeStore();
 * await store.append("t", anchorEntry("start"));
 * await store.append("t", messageEntry({ role: "user", content: "hi" }));
 * const entries = await new TapeQuery("t", store).lastAnchor().kinds("message").all();
 * assert.ok(entries.length === 1 && entries[0]?.id === 2);
 * ```
 */
export class TapeQuery implements TapeQueryFields {
  /** The tape name. */
  readonly tape: string;
  /** The store that evaluates the query. */
  readonly store: TapeStore | SyncTapeStore;

  /**
   * Creates the object.
   *
   * @param tape the tape name
   * @param store the store evaluating it
   * @param fields filters (internal: the builder methods fill them)
   */
  constructor(
    tape: string,
    store: TapeStore | SyncTapeStore,
    fields: Partial<TapeQueryFields> = {},
  ) {
    validateTapeName(tape);
    Object.assign(this, NO_FILTERS, fields);
    this.tape = tape;
    this.store = store;
  }

  #with(fields: Partial<TapeQueryFields>): TapeQuery {
    // `this` spread is its own fields: the filters (then tape and store, set again as they are).
    return new TapeQuery(this.tape, this.store, { ...this, ...fields });
  }

  #string(method: string, value: unknown): string {
    if (typeof value !== "string") {
      throw new TypeError(
        `Invalid query on tape ${JSON.stringify(this.tape)}: ${method} expects a string, got ${
          value === null ? "null" : typeof value
        }`,
      );
    }
    return value;
  }

  /** Keeps entries whose JSON form contains `text`, case-insensitively. */
  query(text: string): TapeQuery {
    return this.#with({ text: this.#string("query", text) });
  }

  /** Entries after the last anchor named `name`; `""` clears every anchor selection. */
  afterAnchor(name: string): TapeQuery {
    const value = this.#string("afterAnchor", name);
    if (value === "") {
      return this.#with({ afterAnchorName: null, afterLast: false, betweenAnchorNames: null });
    }
    return this.#with({ afterAnchorName: value });
  }

  /** Entries after the last anchor of any name. */
  lastAnchor(): TapeQuery {
    return this.#with({ afterLast: true });
  }

  /** Entries strictly between the last anchor `start` and the first anchor `end` after it. */
  betweenAnchors(start: string, end: string): TapeQuery {
    return this.#with({
      betweenAnchorNames: [
        this.#string("betweenAnchors", start),
        this.#string("betweenAnchors", end),
      ],
    });
  }

  /** Entries dated within `[start, end]`; a bare date covers its whole day (UTC). */
  betweenDates(start: string | Date, end: string | Date): TapeQuery {
    for (const value of [start, end]) {
      if (typeof value !== "string" && !(value instanceof Date)) {
        throw new TypeError(
          `Invalid query on tape ${
            JSON.stringify(this.tape)
          }: betweenDates expects strings or Dates, got ${value === null ? "null" : typeof value}`,
        );
      }
    }
    return this.#with({ betweenDateRange: [start, end] });
  }

  /** Keeps entries of these kinds (replaces any earlier kinds filter). */
  kinds(...kinds: string[]): TapeQuery {
    return this.#with({ kindList: kinds.map((kind) => this.#string("kinds", kind)) });
  }

  /** Keeps the first `n` entries. */
  limit(n: number): TapeQuery {
    if (!Number.isInteger(n) || n < 0) {
      throw new RangeError(
        `Invalid query on tape ${
          JSON.stringify(this.tape)
        }: limit must be a non-negative integer, got ${n}`,
      );
    }
    return this.#with({ limitCount: n });
  }

  /** Runs the query: `store.fetchAll(this)`. */
  async all(): Promise<TapeEntry[]> {
    return [...await this.store.fetchAll(this)];
  }
}
