/**
 * The tape store contract (async), its synchronous variant and the adapter between them.
 *
 * @module
 */
import { BubError } from "../kernel/errors.ts";
import type { TapeEntry } from "./entry.ts";
import { NO_FILTERS, type TapeQuerySpec } from "./query_fields.ts";

/**
 * Where tapes live. Every method is async; `append` resolves once the entry is committed.
 * Implementations assign ids per tape (1, 2, ...) and ignore the id of the given entry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, TapeQuery, type TapeStore } from "@bub/core";
 * import { messageEntry } from "@bub/core/tape";
 * const store: TapeStore = new InMemoryTapeStore();
 * await store.append("t", messageEntry({ role: "user", content: "hi" }));
 * assert.deepEqual(await store.listTapes(), ["t"]);
 * assert.equal((await store.fetchAll(new TapeQuery("t", store))).length, 1);
 * ```
 */
export interface TapeStore {
  /** Sorted names of the tapes this store holds (implementations may hide internal tapes). */
  listTapes(): Promise<string[]>;
  /** Deletes a tape; a missing tape is not an error. */
  reset(tape: string): Promise<void>;
  /** Evaluates `query` (§5.5); a missing tape reads as empty. */
  fetchAll(query: TapeQuerySpec): Promise<TapeEntry[]>;
  /** Stores a copy of `entry` with the next id of `tape`. */
  append(tape: string, entry: TapeEntry): Promise<void>;
  /** Optional: appends several entries at once, in order (one commit where possible). */
  appendMany?(tape: string, entries: readonly TapeEntry[]): Promise<void>;
  /**
   * Optional: the newest `event` entry of each of `names` (by payload `name`), in tape order, at
   * most one per name; a missing tape has none. Stores answer it from the end of the tape (or
   * an index), so its cost does not grow with the history before those events. Without it,
   * `latestEvents()` reads every event of the tape.
   */
  latestEvents?(tape: string, names: readonly string[]): Promise<TapeEntry[]>;
  /**
   * Optional: the newest entry of `tape` (null when it is empty or missing), read from the end of
   * the tape, so its cost does not grow with the tape. Its id is the tape's entry count. Without
   * it, callers read the tape (the web console's tape list does).
   */
  lastEntry?(tape: string): Promise<TapeEntry | null>;
  /**
   * Optional compare-and-swap: appends `entries` (in order, as one batch) only when the newest
   * entry of `tape` still has id `lastId` (0: the tape is empty), checked and written as one
   * atomic step (the file store's lock, a SQLite or PostgreSQL transaction); resolves false,
   * writing nothing, when another append came first. For decisions taken once (an approval).
   */
  appendIfLast?(tape: string, entries: readonly TapeEntry[], lastId: number): Promise<boolean>;
}

/**
 * The synchronous store contract; wrap it with {@link AsyncTapeStoreAdapter}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Tape, type TapeEntry } from "@bub/core";
 * import { messageEntry, type SyncTapeStore } from "@bub/core/tape";
 * const tapes = new Map<string, TapeEntry[]>();
 * const store: SyncTapeStore = {
 *   listTapes: () => [...tapes.keys()],
 *   reset: (tape) => void tapes.delete(tape),
 *   fetchAll: (query) => tapes.get(query.tape) ?? [],
 *   append: (tape, entry) => {
 *     const list = tapes.get(tape) ?? [];
 *     list.push({ ...entry, id: list.length + 1 });
 *     tapes.set(tape, list);
 *   },
 * };
 * const tape = new Tape({ store }).scoped("t"); // wrapped in an async adapter
 * await tape.append(messageEntry({ role: "user", content: "hi" }));
 * assert.equal(tapes.get("t")?.length, 1);
 * ```
 */
export interface SyncTapeStore {
  /** Sorted tape names. */
  listTapes(): string[];
  /** Deletes a tape. */
  reset(tape: string): void;
  /** Evaluates a query. */
  fetchAll(query: TapeQuerySpec): Iterable<TapeEntry>;
  /** Stores an entry. */
  append(tape: string, entry: TapeEntry): void;
}

/**
 * Makes a {@link SyncTapeStore} usable where a {@link TapeStore} is expected.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TapeQuery } from "@bub/core";
 * import { AsyncTapeStoreAdapter } from "@bub/core/tape";
 * const rows: Record<string, unknown>[] = [];
 * const sync = {
 *   listTapes: () => ["t"],
 *   reset: () => {},
 *   fetchAll: () => [],
 *   append: () => {},
 * };
 * const store = new AsyncTapeStoreAdapter(sync);
 * assert.ok((await store.fetchAll(new TapeQuery("t", store))).length === rows.length);
 * ```
 */
export class AsyncTapeStoreAdapter implements TapeStore {
  #inner: SyncTapeStore | TapeStore;

  /**
   * Creates the object.
   *
   * @param inner a sync store (an async one also works: results are awaited)
   */
  constructor(inner: SyncTapeStore | TapeStore) {
    this.#inner = inner;
  }

  /** The wrapped store. */
  get inner(): SyncTapeStore | TapeStore {
    return this.#inner;
  }

  /** Sorted tape names. */
  async listTapes(): Promise<string[]> {
    return [...await this.#inner.listTapes()];
  }

  /** Deletes a tape. */
  async reset(tape: string): Promise<void> {
    await this.#inner.reset(tape);
  }

  /** Evaluates a query. */
  async fetchAll(query: TapeQuerySpec): Promise<TapeEntry[]> {
    return [...await this.#inner.fetchAll(query)];
  }

  /** Stores an entry. */
  async append(tape: string, entry: TapeEntry): Promise<void> {
    await this.#inner.append(tape, entry);
  }
}

/**
 * True when `store.append` is declared `async` (the spec's test for an async store).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore } from "@bub/core";
 * import { isAsyncTapeStore } from "@bub/core/tape";
 * assert.ok(isAsyncTapeStore(new InMemoryTapeStore()));
 * ```
 */
export function isAsyncTapeStore(store: SyncTapeStore | TapeStore): store is TapeStore {
  return store instanceof AsyncTapeStoreAdapter ||
    (store.append as { constructor?: { name?: string } }).constructor?.name === "AsyncFunction";
}

/**
 * `store` itself when async, else wrapped in an {@link AsyncTapeStoreAdapter}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore } from "@bub/core";
 * import { toAsyncTapeStore } from "@bub/core/tape";
 * const store = new InMemoryTapeStore();
 * assert.equal(toAsyncTapeStore(store), store); // async stores are returned as they are
 * ```
 */
export function toAsyncTapeStore(store: SyncTapeStore | TapeStore): TapeStore {
  if (typeof store !== "object" || store === null || typeof store.append !== "function") {
    throw new TypeError(`Expected a tape store with an append method, got ${typeof store}`);
  }
  return isAsyncTapeStore(store) ? store : new AsyncTapeStoreAdapter(store);
}

/** Appends entries through `appendMany` when the store has it, else one by one. */
export async function appendAll(
  store: TapeStore,
  tape: string,
  entries: readonly TapeEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  if (store.appendMany) return await store.appendMany(tape, entries);
  for (const entry of entries) await store.append(tape, entry);
}

/**
 * Appends `entries` only when the newest entry of `tape` still has id `lastId` (see
 * {@link TapeStore.appendIfLast}); false, writing nothing, when it has another. A store without
 * `appendIfLast` is checked with `lastEntry` (or a read) and then appended: not atomic across
 * processes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore } from "@bub/core";
 * import { messageEntry } from "@bub/core/tape";
 * import { appendIfLast } from "./store.ts";
 * const store = new InMemoryTapeStore();
 * const entry = messageEntry({ role: "user", content: "hi" });
 * assert.equal(await appendIfLast(store, "t", [entry], 0), true);
 * assert.equal(await appendIfLast(store, "t", [entry], 0), false); // the tape moved on
 * ```
 */
export async function appendIfLast(
  store: TapeStore,
  tape: string,
  entries: readonly TapeEntry[],
  lastId: number,
): Promise<boolean> {
  if (store.appendIfLast) return await store.appendIfLast(tape, entries, lastId);
  if (await lastIdOf(store, tape) !== lastId) return false;
  await appendAll(store, tape, entries);
  return true;
}

/** The id of the newest entry of `tape` (0 when it is empty or missing). */
export async function lastIdOf(store: TapeStore, tape: string): Promise<number> {
  if (store.lastEntry) return (await store.lastEntry(tape))?.id ?? 0;
  const all: TapeQuerySpec = { tape, ...NO_FILTERS };
  return (await store.fetchAll(all)).at(-1)?.id ?? 0;
}

/**
 * A store that refuses everything with `BubError(invalid_input, message)`: a sentinel for
 * plugins that must not touch tapes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UnavailableTapeStore } from "@bub/core/tape";
 * const store = new UnavailableTapeStore("Tapes are disabled.");
 * await store.listTapes().catch((e) => assert.ok(e.message === "Tapes are disabled."));
 * ```
 */
export class UnavailableTapeStore implements TapeStore {
  /** The message of every error. */
  readonly message: string;

  /**
   * Creates the object.
   *
   * @param message what every method throws
   */
  constructor(message: string) {
    this.message = message;
  }

  /** Throws. */
  listTapes(): Promise<string[]> {
    return Promise.reject(new BubError("invalid_input", this.message));
  }

  /** Throws. */
  reset(tape: string): Promise<void> {
    return Promise.reject(new BubError("invalid_input", this.message, { tape }));
  }

  /** Throws. */
  fetchAll(query: TapeQuerySpec): Promise<TapeEntry[]> {
    return Promise.reject(new BubError("invalid_input", this.message, { tape: query.tape }));
  }

  /** Throws. */
  append(tape: string, _entry: TapeEntry): Promise<void> {
    return Promise.reject(new BubError("invalid_input", this.message, { tape }));
  }
}
