// deno-lint-ignore-file require-await -- methods are async so the store is recognised as an async store (§5.4)
/**
 * `InMemoryTapeStore`: tapes held in memory, for tests, forks and ephemeral sessions.
 *
 * @module
 */
import { keepsEntryText, storedCopy } from "./store/_entry_text.ts";
import { type EntryView, evaluateQuery } from "./store/_evaluate.ts";
import { type TapeEntry, validateTapeName } from "./entry.ts";
import type { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";
import { provideLiveView } from "./store/_live_view.ts";

interface _Tape extends EntryView {
  entries: TapeEntry[];
  anchors: number[];
  nextId: number;
  /** The newest `event` entry by payload `name`. */
  events: Map<string, TapeEntry>;
}

// Set by the class's static block: stores copies already made by a store (see `appendStoredCopies`).
let storeCopies: (store: InMemoryTapeStore, tape: string, copies: readonly TapeEntry[]) => void;

/**
 * Tapes in memory: per-tape ids from 1, stored entries are frozen JSON copies.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore } from "@bub/core";
 * import { messageEntry } from "@bub/core/tape";
 * const store = new InMemoryTapeStore();
 * await store.append("a__b", messageEntry({ role: "user", content: "hi" }));
 * assert.ok(store.read("a__b")?.[0]?.id === 1);
 * ```
 */
export class InMemoryTapeStore implements TapeStore, AsyncDisposable {
  #tapes = new Map<string, _Tape>();

  /** Creates an empty store. */
  constructor() {
    // Incremental contexts read a tape's own entries (see `store/_live_view.ts`).
    provideLiveView(
      this,
      (query) => Promise.resolve(this.#tapes.get(query.tape) ?? { entries: [], anchors: [] }),
    );
  }

  /** Sorted names of every tape. */
  async listTapes(): Promise<string[]> {
    return [...this.#tapes.keys()].sort();
  }

  /** Removes a tape and its id counter. */
  async reset(tape: string): Promise<void> {
    validateTapeName(tape);
    this.#tapes.delete(tape);
  }

  /** The entries of `tape`, or null when it does not exist. */
  read(tape: string): TapeEntry[] | null {
    const found = this.#tapes.get(tape);
    return found ? [...found.entries] : null;
  }

  /** Evaluates a query (§5.5). */
  async fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    // A missing tape reads as an empty one (anchor filters still fail).
    return evaluateQuery(this.#tapes.get(query.tape) ?? { entries: [], anchors: [] }, query);
  }

  /** The newest event of each of `names`, found from the end (see {@link TapeStore}). */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    const events = this.#tapes.get(tape)?.events;
    if (!events) return [];
    const found = new Set<TapeEntry>();
    for (const name of names) {
      const entry = events.get(name);
      if (entry) found.add(entry);
    }
    return [...found].sort((a, b) => a.id - b.id);
  }

  /** The newest entry of `tape`, or null (see {@link TapeStore}). */
  async lastEntry(tape: string): Promise<TapeEntry | null> {
    return this.#tapes.get(tape)?.entries.at(-1) ?? null;
  }

  /** Stores a copy of `entry` with the next id. */
  async append(tape: string, entry: TapeEntry): Promise<void> {
    await this.appendMany(tape, [entry]);
  }

  /** Stores copies of `entries` in order. */
  async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
    const first = this.#tapes.get(tape)?.nextId ?? 1;
    // Every entry is checked and copied before any is stored.
    const keep = keepsEntryText(this);
    this.#store(tape, entries.map((entry, i) => storedCopy(tape, entry, first + i, keep)));
  }

  /**
   * Stores copies of `entries` only when the newest entry of `tape` has id `lastId` (checked and
   * stored in one synchronous step); false, storing nothing, otherwise.
   */
  async appendIfLast(
    tape: string,
    entries: readonly TapeEntry[],
    lastId: number,
  ): Promise<boolean> {
    const first = this.#tapes.get(tape)?.nextId ?? 1;
    if (first - 1 !== lastId) return false;
    const keep = keepsEntryText(this);
    this.#store(tape, entries.map((entry, i) => storedCopy(tape, entry, first + i, keep)));
    return true;
  }

  static {
    storeCopies = (store, tape, copies) => {
      const first = store.#tapes.get(tape)?.nextId ?? 1;
      store.#store(
        tape,
        copies.map(({ kind, payload, meta, date }, i) =>
          Object.freeze({ id: first + i, kind, payload, meta, date })
        ),
      );
    };
  }

  #store(tape: string, copies: readonly TapeEntry[]): void {
    let state = this.#tapes.get(tape);
    if (!state) {
      this.#tapes.set(tape, state = { entries: [], anchors: [], nextId: 1, events: new Map() });
    }
    for (const stored of copies) {
      if (stored.kind === "anchor") state.anchors.push(state.entries.length);
      else if (stored.kind === "event" && typeof stored.payload.name === "string") {
        state.events.set(stored.payload.name, stored);
      }
      state.entries.push(stored);
    }
    state.nextId += copies.length;
  }

  /** Drops every tape. */
  async close(): Promise<void> {
    this.#tapes.clear();
  }

  /** Same as {@link close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Appends to `store` entries that are already stored copies (frozen throughout, checked, equal
 * to their JSON round trip): another memory store's entries, as a fork's merge hands them over.
 * They are stored with this store's ids and shared parts, without another check or copy.
 */
export function appendStoredCopies(
  store: InMemoryTapeStore,
  tape: string,
  copies: readonly TapeEntry[],
): void {
  if (copies.length > 0) storeCopies(store, tape, copies);
}
