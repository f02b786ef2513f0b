/**
 * A session's finished turns as chat items (pure, no DOM), read from its tape: each turn's prompt
 * (its `loop.start`) as the user's message, its tool calls paired with their results, its answers,
 * steering messages, a turn with no answer marked as such, and comma commands with their output.
 *
 * @module
 */
import type { WireEntry } from "./timeline.ts";
import { isErrorRecord } from "./error_text.ts";

/** One item of the conversation. */
export type HistoryItem =
  | { type: "user"; text: string; date: string; steer: boolean }
  | { type: "bot"; text: string }
  | {
    type: "tool";
    name: string;
    arguments: unknown;
    /** Has a result. */
    done: boolean;
    result: unknown;
    /** The result is an error record. */
    failed: boolean;
  }
  | { type: "note"; text: string };

type Data = Record<string, unknown>;
const record = (value: unknown): Data =>
  value !== null && typeof value === "object" ? value as Data : {};

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
}

function parsed(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** The conversation in `entries` (tape order). */
export function chatHistory(entries: readonly WireEntry[]): HistoryItem[] {
  const items: HistoryItem[] = [];
  let pending: Extract<HistoryItem, { type: "tool" }>[] = [];
  let inTurn = false;
  let answered = false;
  let userSeen = false;
  const endTurn = (): void => {
    if (inTurn && !answered) items.push({ type: "note", text: "no answer (stopped or failed)" });
    inTurn = false;
    pending = [];
  };
  for (const entry of entries) {
    const payload = entry.payload;
    const data = record(payload.data);
    if (entry.kind === "event" && payload.name === "loop.start") {
      endTurn();
      inTurn = true;
      answered = false;
      userSeen = false;
      items.push({ type: "user", text: textOf(data.prompt), date: entry.date, steer: false });
    } else if (entry.kind === "event" && payload.name === "command") {
      endTurn();
      items.push({ type: "user", text: `,${data.raw ?? ""}`, date: entry.date, steer: false });
      items.push({ type: "bot", text: "```\n" + String(data.output ?? "") + "\n```" });
    } else if (entry.kind === "message" && payload.role === "user") {
      // The turn's own prompt is its first user message; later ones were steered in.
      if (inTurn && userSeen) {
        items.push({ type: "user", text: textOf(payload.content), date: entry.date, steer: true });
      }
      userSeen = true;
    } else if (entry.kind === "message" && payload.role === "assistant") {
      const text = textOf(payload.content);
      if (text.trim() !== "") {
        items.push({ type: "bot", text });
        answered = true;
      }
    } else if (entry.kind === "tool_call" && Array.isArray(payload.calls)) {
      pending = payload.calls.map((raw) => {
        const fn = record(record(raw).function);
        const item = {
          type: "tool" as const,
          name: String(fn.name ?? "?"),
          arguments: parsed(fn.arguments),
          done: false,
          result: undefined as unknown,
          failed: false,
        };
        items.push(item);
        return item;
      });
    } else if (entry.kind === "tool_result" && Array.isArray(payload.results)) {
      payload.results.forEach((result, i) => {
        const item = pending[i];
        if (!item) return;
        item.done = true;
        item.result = result;
        item.failed = isErrorRecord(result);
      });
      pending = [];
    } else if (entry.kind === "event" && payload.name === "handoff") {
      if (data.name !== "session/start") items.push({ type: "note", text: `handoff ${data.name}` });
    }
  }
  endTurn();
  return items;
}
