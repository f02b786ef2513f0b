/**
 * Context selection (§5.10): which entries a model sees and how they become chat messages.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { LAST_ANCHOR, TapeContext } from "../kernel/tape_context.ts";
import { dumpsOrString, pyDumps } from "../_internal/json.ts";
import type { TapeEntry } from "./entry.ts";
import type { TapeQuery } from "./query.ts";
import { recordKept } from "./message_source.ts";
import {
  foldedCall,
  frozenPlainCalls,
  type MessageShape,
  payloadShape,
  SHAPE_ANY,
  SHAPE_CALLS,
  SHAPE_PLAIN_CALLS,
  SHAPE_RESULT,
  SHAPE_TEXT,
  ShapeList,
} from "./_message_shape.ts";

const NO_SHAPES = new ShapeList();

export { LAST_ANCHOR, TapeContext };
export type { TapeContextOptions, TapeSelector } from "../kernel/tape_context.ts";

/**
 * A chat message in the OpenAI chat format.
 *
 * @example
 * ```ts
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import type { TapeChatMessage } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("t");
 * await tape.ensureBootstrapAnchor();
 * const messages: TapeChatMessage[] = await tape.readMessages();
 * ```
 */
export type TapeChatMessage = Record<string, unknown>;
/**
 * {@link TapeChatMessage} under its first name.
 *
 * @example
 * ```ts
 * import type { ChatMessage } from "@bub/core/tape";
 * const message: ChatMessage = { role: "assistant", content: "Done." };
 * ```
 */
export type ChatMessage = TapeChatMessage;

/**
 * Narrows `query` to the context's anchor: null → the whole tape, `LAST_ANCHOR` →
 * `lastAnchor()`, a name → `afterAnchor(name)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, TapeQuery } from "@bub/core";
 * import { anchorEntry, buildQuery, messageEntry, TapeContext } from "@bub/core/tape";
 * const store = new InMemoryTapeStore();
 * await store.append("t", messageEntry({ role: "user", content: "old" }));
 * await store.append("t", anchorEntry("handoff"));
 * await store.append("t", messageEntry({ role: "user", content: "new" }));
 * const entries = await buildQuery(new TapeContext(), new TapeQuery("t", store)).all();
 * assert.deepEqual(entries.map((entry) => entry.payload.content), ["new"]); // after the last anchor
 * ```
 */
export function buildQuery(context: TapeContext, query: TapeQuery): TapeQuery {
  if (context.anchor === null) return query;
  if (context.anchor === LAST_ANCHOR) return query.lastAnchor();
  return query.afterAnchor(context.anchor);
}

function _toolContent(value: unknown): string {
  return typeof value === "string" ? value : dumpsOrString(value);
}

/** A message as a fold keeps it: a message entry's (frozen) payload, or one the fold built. */
export type FoldedMessage = Readonly<Record<string, unknown>>;
export type { MessageShape };

/**
 * The builtin selection as a left fold over entries, so a context can be extended entry by entry
 * (see `_context_cache.ts`) and still equal a fresh {@link selectMessages}. With `messagesOnly`
 * it keeps `message` entries only (the selection of a context without a selector).
 */
export class MessageFold {
  /** The selected messages so far (read them out with {@link copyMessages}). */
  messages: FoldedMessage[] = [];
  /** Each message's {@link MessageShape}, by position. */
  shapes: ShapeList = new ShapeList();
  /** The calls of the last `tool_call` entry, waiting for their results. */
  pending: readonly Record<string, unknown>[];
  readonly #messagesOnly: boolean;

  /**
   * Creates the object.
   *
   * @param messagesOnly keep only `message` entries
   * @param pending calls still waiting for results (when continuing another fold)
   */
  constructor(messagesOnly = false, pending: readonly Record<string, unknown>[] = []) {
    this.#messagesOnly = messagesOnly;
    this.pending = pending;
  }

  /** Forgets everything (an anchor the context starts after). */
  reset(): void {
    this.messages = [];
    this.shapes = new ShapeList();
    this.pending = [];
  }

  #add(message: FoldedMessage, shape: MessageShape): void {
    this.messages.push(message);
    this.shapes.push(shape, message);
  }

  /** Adds one (context-visible) entry. */
  push(entry: TapeEntry): void {
    const payload = entry.payload;
    if (this.#messagesOnly) {
      if (entry.kind === "message") this.#add(payload, payloadShape(payload));
      return;
    }
    switch (entry.kind) {
      case "anchor": {
        const state = "state" in payload ? pyDumps(payload.state ?? null) : "null";
        this.#add({
          role: "assistant",
          content: `[Anchor created: ${String(payload.name)}]: ${state}`,
        }, SHAPE_TEXT);
        break;
      }
      case "message":
        if (isRecord(payload)) this.#add(payload, payloadShape(payload));
        break;
      case "tool_call": {
        const calls = Array.isArray(payload.calls) ? payload.calls : [];
        const frozen = frozenPlainCalls(calls);
        if (frozen !== null) {
          // A stored payload's calls: kept as they are (they never change), no copies.
          this.pending = frozen;
          if (frozen.length) {
            this.#add({ role: "assistant", content: "", tool_calls: frozen }, SHAPE_PLAIN_CALLS);
          }
          break;
        }
        let plain = true;
        const pending = calls.filter(isRecord).map((call) => {
          const [copy, isPlain] = foldedCall(call);
          plain &&= isPlain;
          return copy;
        });
        this.pending = pending;
        if (pending.length) {
          this.#add(
            { role: "assistant", content: "", tool_calls: pending },
            plain ? SHAPE_PLAIN_CALLS : SHAPE_CALLS,
          );
        }
        break;
      }
      case "tool_result": {
        if (!Array.isArray(payload.results)) break;
        payload.results.forEach((result, i) => {
          const content = _toolContent(result);
          const call = this.pending[i];
          const id = call && typeof call.id === "string" && call.id ? call.id : undefined;
          const fn = call?.function;
          const name = isRecord(fn) && typeof fn.name === "string" && fn.name ? fn.name : undefined;
          if (id !== undefined && name !== undefined) {
            this.#add({ role: "tool", content, tool_call_id: id, name }, SHAPE_RESULT);
          } else if (id === undefined && name === undefined) {
            this.#add({ role: "tool", content }, SHAPE_TEXT);
          } else {
            const message: ChatMessage = { role: "tool", content };
            if (id !== undefined) message.tool_call_id = id;
            if (name !== undefined) message.name = name;
            this.#add(message, SHAPE_ANY);
          }
        });
        this.pending = [];
        break;
      }
    }
  }
}

/**
 * Fresh copies of folded messages (then of `more`), each copied as its shape says: what a
 * selection returns (callers may change them).
 */
export function copyMessages(
  messages: readonly FoldedMessage[],
  shapes: ShapeList,
  more: readonly FoldedMessage[] = [],
  moreShapes: ShapeList = NO_SHAPES,
): ChatMessage[] {
  const head = messages.length;
  const out: ChatMessage[] = new Array(head + more.length);
  shapes.copyAll(messages, out, 0);
  moreShapes.copyAll(more, out, head);
  // A request body built from the copies may reuse what it derived from the (unchanging) sources.
  recordKept(messages, shapes);
  return out;
}

/**
 * The builtin selector: anchors render as assistant notes, messages pass through, tool calls
 * become an assistant `tool_calls` message and tool results become `tool` messages paired with
 * the pending calls by position; every other kind is ignored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { anchorEntry, defaultTapeContext, selectMessages } from "@bub/core/tape";
 * const [message] = selectMessages([anchorEntry("a", { x: 1 })], defaultTapeContext());
 * assert.ok(message?.content === '[Anchor created: a]: {"x": 1}');
 * ```
 */
export function selectMessages(
  entries: readonly TapeEntry[] | readonly Record<string, unknown>[],
  _context?: TapeContext,
): ChatMessage[] {
  const fold = new MessageFold();
  for (const entry of entries as readonly TapeEntry[]) fold.push(entry);
  return copyMessages(fold.messages, fold.shapes);
}

/**
 * The builtin context: after the last anchor, selected by {@link selectMessages}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultTapeContext, LAST_ANCHOR } from "@bub/core/tape";
 * assert.ok(defaultTapeContext().anchor === LAST_ANCHOR);
 * ```
 */
export function defaultTapeContext(state: Record<string, unknown> = {}): TapeContext {
  return new TapeContext({ anchor: LAST_ANCHOR, select: selectMessages, state });
}

/**
 * Drops entries whose `meta.context` is exactly `false` (they never reach a model).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contextVisible, messageEntry } from "@bub/core/tape";
 * const hidden = messageEntry({ role: "user", content: "debug only" }, { context: false });
 * const entries = [messageEntry({ role: "user", content: "hi" }), hidden];
 * assert.deepEqual(contextVisible(entries), [entries[0]]);
 * ```
 */
export function contextVisible(entries: readonly TapeEntry[]): TapeEntry[] {
  return entries.filter((entry) => entry.meta.context !== false);
}
