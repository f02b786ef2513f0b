/**
 * The internal hooks that let a context be extended with new entries instead of rebuilt (see
 * `../_context_cache.ts`): a store's live view of a tape, and a fork's layers.
 *
 * @module
 */
import type { EntryView, QuerySpec } from "./_evaluate.ts";
import type { TapeEntry } from "../entry.ts";
import type { TapeStore } from "../store.ts";

/**
 * A live view of a store: the store's own entries of `query.tape` (an object it keeps, not a
 * copy) covering the anchor the query starts from, as the whole tape would answer it. While the
 * store returns the same object its `entries` and `anchors` only grow; a store that resets,
 * replaces or re-reads a tape returns another object.
 */
export type LiveView = (query: QuerySpec) => Promise<EntryView>;

/** One fork's layer of a tape. */
export interface ForkLayer {
  /** The store the fork merges into. */
  parent: TapeStore;
  /** True when the fork reset the tape (the parent's entries are hidden). */
  reset: boolean;
  /** The buffered entries, in order. */
  local: readonly TapeEntry[];
}

/** A fork's layers: null for a tape the fork passes through to its parent. */
export type ForkLayers = (tape: string) => ForkLayer | null;

const LIVE_VIEWS = new WeakMap<object, LiveView>();
const FORK_LAYERS = new WeakMap<object, ForkLayers>();

/** Registers the live view of `store` (its constructor calls this). */
export function provideLiveView(store: TapeStore, view: LiveView): void {
  LIVE_VIEWS.set(store, view);
}

/** The live view of `store`, if it has one. */
export function liveViewOf(store: TapeStore): LiveView | undefined {
  return LIVE_VIEWS.get(store);
}

/** Registers the layers of a fork store (its constructor calls this). */
export function provideForkLayers(store: TapeStore, layers: ForkLayers): void {
  FORK_LAYERS.set(store, layers);
}

/** The layers of a fork store, if it is one. */
export function forkLayersOf(store: TapeStore): ForkLayers | undefined {
  return FORK_LAYERS.get(store);
}
