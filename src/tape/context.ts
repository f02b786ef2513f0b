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
  const out: ChatMessage[] = [];
  let pending: Record<string, unknown>[] = [];
  for (const entry of entries as readonly TapeEntry[]) {
    const payload = entry.payload;
    switch (entry.kind) {
      case "anchor": {
        const state = "state" in payload ? pyDumps(payload.state ?? null) : "null";
        out.push({
          role: "assistant",
          content: `[Anchor created: ${String(payload.name)}]: ${state}`,
        });
        break;
      }
      case "message":
        if (isRecord(payload)) out.push({ ...payload });
        break;
      case "tool_call": {
        const calls = Array.isArray(payload.calls) ? payload.calls : [];
        pending = calls.filter(isRecord).map((call) => ({ ...call }));
        if (pending.length) out.push({ role: "assistant", content: "", tool_calls: pending });
        break;
      }
      case "tool_result": {
        if (!Array.isArray(payload.results)) break;
        payload.results.forEach((result, i) => {
          const message: ChatMessage = { role: "tool", content: _toolContent(result) };
          const call = pending[i];
          if (call) {
            if (typeof call.id === "string" && call.id) message.tool_call_id = call.id;
            const fn = call.function;
            if (isRecord(fn) && typeof fn.name === "string" && fn.name) message.name = fn.name;
          }
          out.push(message);
        });
        pending = [];
        break;
      }
    }
  }
  return out;
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
