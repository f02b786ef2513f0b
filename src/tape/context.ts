/**
 * Context selection (§5.10): which entries a model sees and how they become chat messages.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { LAST_ANCHOR, TapeContext } from "../kernel/tape_context.ts";
import { dumpsOrString, pyDumps } from "./_json.ts";
import type { TapeEntry } from "./entry.ts";
import type { TapeQuery } from "./query.ts";
import { recordKept } from "./_message_source.ts";

export { LAST_ANCHOR, TapeContext };
export type { TapeContextOptions, TapeSelector } from "../kernel/tape_context.ts";

/** A chat message in the OpenAI chat format. */
export type TapeChatMessage = Record<string, unknown>;
/** {@link TapeChatMessage} under its first name. */
export type ChatMessage = TapeChatMessage;

/**
 * Narrows `query` to the context's anchor: null → the whole tape, `LAST_ANCHOR` →
 * `lastAnchor()`, a name → `afterAnchor(name)`.
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

// The assistant `tool_calls` messages a fold builds: copied with their calls when read out (as
// a fresh selection gives fresh calls), unlike a stored message that holds `tool_calls` itself.
const BUILT_CALLS = new WeakSet<object>();

/**
 * The builtin selection as a left fold over entries, so a context can be extended entry by entry
 * (see `_context_cache.ts`) and still equal a fresh {@link selectMessages}. With `messagesOnly`
 * it keeps `message` entries only (the selection of a context without a selector).
 */
export class MessageFold {
  /** The selected messages so far (read them out with {@link copyMessages}). */
  messages: FoldedMessage[] = [];
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
    this.pending = [];
  }

  /** Adds one (context-visible) entry. */
  push(entry: TapeEntry): void {
    const payload = entry.payload;
    if (this.#messagesOnly) {
      if (entry.kind === "message") this.messages.push(payload);
      return;
    }
    switch (entry.kind) {
      case "anchor": {
        const state = "state" in payload ? pyDumps(payload.state ?? null) : "null";
        this.messages.push({
          role: "assistant",
          content: `[Anchor created: ${String(payload.name)}]: ${state}`,
        });
        break;
      }
      case "message":
        if (isRecord(payload)) this.messages.push(payload);
        break;
      case "tool_call": {
        const calls = Array.isArray(payload.calls) ? payload.calls : [];
        const pending = calls.filter(isRecord).map((call) => ({ ...call }));
        this.pending = pending;
        if (pending.length) {
          const message = { role: "assistant", content: "", tool_calls: pending };
          BUILT_CALLS.add(message);
          this.messages.push(message);
        }
        break;
      }
      case "tool_result": {
        if (!Array.isArray(payload.results)) break;
        payload.results.forEach((result, i) => {
          const message: ChatMessage = { role: "tool", content: _toolContent(result) };
          const call = this.pending[i];
          if (call) {
            if (typeof call.id === "string" && call.id) message.tool_call_id = call.id;
            const fn = call.function;
            if (isRecord(fn) && typeof fn.name === "string" && fn.name) message.name = fn.name;
          }
          this.messages.push(message);
        });
        this.pending = [];
        break;
      }
    }
  }
}

/** Fresh copies of folded messages (then of `more`): what a selection returns (callers may change them). */
export function copyMessages(
  messages: readonly FoldedMessage[],
  more: readonly FoldedMessage[] = [],
): ChatMessage[] {
  const head = messages.length;
  const out: ChatMessage[] = new Array(head + more.length);
  for (let i = 0; i < out.length; i++) {
    const message = i < head ? messages[i]! : more[i - head]!;
    // Only a message with `tool_calls` can be one the fold built (looked up in the weak set).
    out[i] = message.tool_calls !== undefined && BUILT_CALLS.has(message)
      ? {
        ...message,
        tool_calls: (message.tool_calls as Record<string, unknown>[]).map((call) => ({ ...call })),
      }
      : { ...message };
  }
  // A request body built from the copies may reuse what it derived from the (unchanging) sources.
  recordKept(messages);
  return out;
}

/**
 * The builtin selector: anchors render as assistant notes, messages pass through, tool calls
 * become an assistant `tool_calls` message and tool results become `tool` messages paired with
 * the pending calls by position; every other kind is ignored.
 *
 * @example
 * ```ts
 * import { anchorEntry, defaultTapeContext, selectMessages } from "@bub/core";
 * const [message] = selectMessages([anchorEntry("a", { x: 1 })], defaultTapeContext());
 * console.assert(message?.content === '[Anchor created: a]: {"x": 1}');
 * ```
 */
export function selectMessages(
  entries: readonly TapeEntry[] | readonly Record<string, unknown>[],
  _context?: TapeContext,
): ChatMessage[] {
  const fold = new MessageFold();
  for (const entry of entries as readonly TapeEntry[]) fold.push(entry);
  return copyMessages(fold.messages);
}

/**
 * The builtin context: after the last anchor, selected by {@link selectMessages}.
 *
 * @example
 * ```ts
 * import { defaultTapeContext, LAST_ANCHOR } from "@bub/core";
 * console.assert(defaultTapeContext().anchor === LAST_ANCHOR);
 * ```
 */
export function defaultTapeContext(state: Record<string, unknown> = {}): TapeContext {
  return new TapeContext({ anchor: LAST_ANCHOR, select: selectMessages, state });
}

/** Drops entries whose `meta.context` is exactly `false` (they never reach a model). */
export function contextVisible(entries: readonly TapeEntry[]): TapeEntry[] {
  return entries.filter((entry) => entry.meta.context !== false);
}
