/**
 * Turns the typed events of `streamInbound` into JSON-safe objects for the browser: errors
 * become `{ kind, message, cause? }`, the `done` result keeps only the session id and the
 * answer text.
 *
 * @module
 */
import type { TurnEvent } from "../../kernel/turn_stream.ts";

/** One event as sent on the server-sent-events stream. */
export interface WireEvent {
  /** The event kind (`text`, `tool_start`, `tool_end`, …, `done`, or `cancelled`/`failed`). */
  kind: string;
  /** The JSON-safe payload. */
  data: unknown;
}

function errorJson(error: unknown, depth = 0): Record<string, unknown> {
  if (error instanceof Error) {
    const kind = (error as { kind?: unknown }).kind;
    const out: Record<string, unknown> = {
      kind: typeof kind === "string" ? kind : error.name,
      message: error.message,
    };
    // The cause says what went wrong inside a wrapped failure (e.g. a tool's own error).
    if (error.cause !== undefined && depth < 4) out.cause = errorJson(error.cause, depth + 1);
    return out;
  }
  return { kind: "unknown", message: String(error) };
}

/** A deep copy of `value` that `JSON.stringify` accepts (errors, bigints, cycles handled). */
export function jsonSafe(value: unknown): unknown {
  const seen = new WeakSet<object>();
  const walk = (item: unknown): unknown => {
    if (item instanceof Error) return errorJson(item);
    if (typeof item === "bigint") return item.toString();
    if (typeof item === "function" || typeof item === "symbol") return undefined;
    if (item === null || typeof item !== "object") return item;
    if (seen.has(item)) return "[circular]";
    seen.add(item);
    const out = Array.isArray(item)
      ? item.map(walk)
      : Object.fromEntries(Object.entries(item).map(([key, val]) => [key, walk(val)]));
    seen.delete(item);
    return out;
  };
  return walk(value);
}

/** The wire form of one turn event. */
export function wireEvent(event: TurnEvent): WireEvent {
  if (event.kind === "done") {
    const { sessionId, modelOutput } = event.data.result;
    return { kind: "done", data: { session_id: sessionId, text: modelOutput } };
  }
  return { kind: event.kind, data: jsonSafe(event.data) };
}

/** The wire event ending a turn that failed or was cancelled. */
export function endEvent(error: unknown, cancelled: boolean): WireEvent {
  return { kind: cancelled ? "cancelled" : "failed", data: errorJson(error) };
}
