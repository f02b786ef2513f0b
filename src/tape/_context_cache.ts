/**
 * Incremental contexts: the messages of a tape's context kept per live view of a store and
 * extended with the entries appended since the last read, instead of rebuilt from the tape on
 * every model call. A fork adds its (turn-sized) buffer on top of its parent's kept messages.
 * The result equals a fresh `selectMessages(contextVisible(query.all()))` (tests/tape/
 * context_incremental.test.ts checks it after every append on varied tapes).
 *
 * @module
 */
import { BubError } from "../kernel/errors.ts";
import type { TapeContext } from "../kernel/tape_context.ts";
import { anchorSlice, type EntryView, type QuerySpec } from "./store/_evaluate.ts";
import { forkLayersOf, liveViewOf } from "./store/_live_view.ts";
import {
  buildQuery,
  type ChatMessage,
  copyMessages,
  type FoldedMessage,
  MessageFold,
  selectMessages,
} from "./context.ts";
import type { TapeEntry } from "./entry.ts";
import { TapeQuery } from "./query.ts";
import { ShapeList } from "./_message_shape.ts";
import { noteCopies } from "./message_source.ts";
import type { TapeStore } from "./store.ts";

/** A fold's outcome: the messages and the calls still waiting for results. */
interface Folded {
  readonly messages: readonly FoldedMessage[];
  /** The shapes of `messages`, by position. */
  readonly shapes: ShapeList;
  readonly pending: readonly Record<string, unknown>[];
  /** Messages after `messages` (a fork's buffer), if any. */
  readonly tail?: readonly FoldedMessage[];
  /** The shapes of `tail`. */
  readonly tailShapes?: ShapeList;
}

/** The kept fold of one live view for one context shape. */
interface Kept {
  /** Entries of the view folded so far. */
  done: number;
  fold: MessageFold;
}

const KEPT = new WeakMap<EntryView, Map<string, Kept>>();

/** What a fork's parent answers when the context's anchor is not on the parent's tape. */
const NO_BASE: unique symbol = Symbol("no base");

/** True when the anchor the context starts after is not in `view` (an anchor query would throw). */
function _anchorMissing(view: EntryView, query: QuerySpec): boolean {
  if (query.afterLast) return view.anchors.length === 0;
  const name = query.afterAnchorName;
  return name !== null && !view.anchors.some((pos) => view.entries[pos]?.payload.name === name);
}

/** True when `entry` is an anchor the context starts after (it clears what came before). */
function _restarts(entry: TapeEntry, query: QuerySpec): boolean {
  if (entry.kind !== "anchor") return false;
  if (query.afterLast) return true;
  return query.afterAnchorName !== null && entry.payload.name === query.afterAnchorName;
}

function _extend(fold: MessageFold, entries: readonly TapeEntry[], from: number, query: QuerySpec) {
  for (let i = from; i < entries.length; i++) {
    const entry = entries[i]!;
    if (_restarts(entry, query)) fold.reset();
    else if (entry.meta.context !== false) fold.push(entry);
  }
}

async function _live(
  live: (query: QuerySpec) => Promise<EntryView>,
  query: QuerySpec,
  key: string,
  messagesOnly: boolean,
  soft: boolean,
): Promise<Folded | typeof NO_BASE> {
  const view = await live(query);
  let byKey = KEPT.get(view);
  if (!byKey) KEPT.set(view, byKey = new Map());
  let kept = byKey.get(key);
  if (!kept) {
    // A fork's parent without the anchor (a fresh session): no base, without building the error.
    if (soft && _anchorMissing(view, query)) return NO_BASE;
    // Throws the store's own not-found errors for a missing anchor (nothing is kept then).
    const [start] = anchorSlice(view, query);
    kept = { done: start, fold: new MessageFold(messagesOnly) };
    byKey.set(key, kept);
  }
  _extend(kept.fold, view.entries, kept.done, query);
  kept.done = view.entries.length;
  return kept.fold;
}

/** The fold of `query` on `store`, or null when the store cannot answer it incrementally. */
async function _folded(
  store: TapeStore,
  query: QuerySpec,
  key: string,
  messagesOnly: boolean,
  soft = false,
): Promise<Folded | null | typeof NO_BASE> {
  const live = liveViewOf(store);
  if (live) return await _live(live, query, key, messagesOnly, soft);
  const layers = forkLayersOf(store);
  if (!layers) return null;
  const layer = layers(query.tape);
  if (layer === null) {
    const parent = (store as unknown as { parent: TapeStore }).parent;
    return await _folded(parent, query, key, messagesOnly, soft);
  }
  // As `ForkTapeStore.fetchAll`: the parent's answer (none when reset here or when it fails with
  // a BubError), then the buffer, where an anchor the context starts after clears the result.
  let base: Folded | null = null;
  if (!layer.reset) {
    try {
      const parent = await _folded(layer.parent, query, key, messagesOnly, true);
      if (parent === null) return null;
      if (parent !== NO_BASE) {
        base = parent.tail?.length
          ? {
            messages: [...parent.messages, ...parent.tail],
            shapes: parent.shapes.concat(parent.tailShapes!),
            pending: parent.pending,
          }
          : parent;
      }
    } catch (error) {
      if (!BubError.isInstance(error)) throw error;
    }
  }
  const tail = new MessageFold(messagesOnly, base?.pending ?? []);
  let cleared = base === null;
  for (const entry of layer.local) {
    if (_restarts(entry, query)) {
      tail.reset();
      cleared = true;
    } else if (entry.meta.context !== false) tail.push(entry);
  }
  return {
    messages: cleared ? tail.messages : base!.messages,
    shapes: cleared ? tail.shapes : base!.shapes,
    pending: tail.pending,
    tail: cleared ? [] : tail.messages,
    tailShapes: cleared ? new ShapeList() : tail.shapes,
  };
}

/** The kept fold of `tape`'s context on `store`; null when it cannot be kept (see below). */
async function _contextFold(
  store: TapeStore,
  tape: string,
  context: TapeContext,
): Promise<Folded | null> {
  const messagesOnly = context.select === null;
  if (!messagesOnly && context.select !== selectMessages) return null;
  if (!liveViewOf(store) && !forkLayersOf(store)) return null;
  const query = buildQuery(context, new TapeQuery(tape, store));
  const key = `${messagesOnly ? "m" : "s"}:${
    query.afterLast ? "\0last" : query.afterAnchorName ?? "\0all"
  }`;
  const folded = await _folded(store, query, key, messagesOnly);
  // Not soft at the top: a missing anchor throws the store's own not-found error.
  return folded === NO_BASE ? null : folded;
}

/**
 * The context messages of `tape` on `store`, kept between calls and extended with new entries;
 * null when the context has a custom selector or the store has no live view (the caller then
 * reads the tape). The array is noted (`noteCopies`): a request body may take the kept run's
 * cached JSON for copies nobody can have changed (see `agent/model_call.ts`).
 */
export async function incrementalMessages(
  store: TapeStore,
  tape: string,
  context: TapeContext,
): Promise<ChatMessage[] | null> {
  const folded = await _contextFold(store, tape, context);
  if (folded === null) return null;
  const copies = copyMessages(folded.messages, folded.shapes, folded.tail, folded.tailShapes);
  const { messages: kept, shapes } = folded;
  noteCopies(copies, { kept, shapes, count: kept.length });
  return copies;
}
