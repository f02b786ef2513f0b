/**
 * A session's tape replayed as ACP `session/update`s for `session/load`: each turn's prompt as
 * `user_message_chunk`, the answers as `agent_message_chunk`, every tool call as a `tool_call`
 * followed by its `tool_call_update` (with the recorded result), comma commands with their
 * output. A conversation started in Telegram or the web console opens in the editor with its
 * tool calls.
 *
 * @module
 */
import type { TapeEntry } from "../../tape/entry.ts";
import { promptText, withoutContextHeader } from "../web/tape_view.ts";
import { parseArguments } from "./tool_view.ts";
import {
  type AcpUpdate,
  planUpdate,
  textBlock,
  toolCallEnd,
  toolCallStart,
} from "./turn_updates.ts";

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? value as Record<string, unknown> : {};
}

/** Whether a recorded tool result is a failure (Bub records failures as `{kind, message}`). */
function failed(result: unknown): boolean {
  const value = record(result);
  return typeof value.kind === "string" && typeof value.message === "string" &&
    Object.keys(value).every((key) => key === "kind" || key === "message" || key === "details");
}

/**
 * The updates that replay `entries` (a tape, oldest first); relative paths resolve against
 * `workspace`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { historyUpdates } from "@bub/core/channels";
 * import { createEntry } from "@bub/core/tape";
 * const updates = historyUpdates([
 *   createEntry("event", { name: "loop.start", data: { prompt: "hi" } }),
 *   createEntry("message", { role: "assistant", content: "hello" }),
 * ], "/work");
 * assert.deepEqual(updates.map((u) => u.sessionUpdate), ["user_message_chunk", "agent_message_chunk"]);
 * ```
 */
export function historyUpdates(entries: readonly TapeEntry[], workspace: string): AcpUpdate[] {
  const out: AcpUpdate[] = [];
  let pending: { id: string; name: string; args: Record<string, unknown> }[] = [];
  let inTurn = false;
  let promptSeen = false;
  for (const entry of entries) {
    const payload = record(entry.payload);
    const data = record(payload.data);
    if (entry.kind === "event" && payload.name === "loop.start") {
      inTurn = true;
      promptSeen = false;
      const text = withoutContextHeader(promptText(data.prompt));
      if (text !== "") out.push({ sessionUpdate: "user_message_chunk", content: textBlock(text) });
    } else if (entry.kind === "event" && payload.name === "command") {
      inTurn = false;
      out.push({ sessionUpdate: "user_message_chunk", content: textBlock(`,${data.raw ?? ""}`) });
      const output = String(data.output ?? "");
      if (output !== "") {
        const block = textBlock("```\n" + output + "\n```");
        out.push({ sessionUpdate: "agent_message_chunk", content: block });
      }
    } else if (entry.kind === "message" && payload.role === "user") {
      // The turn's first user message is its prompt (shown above); later ones were steered in.
      const text = withoutContextHeader(promptText(payload.content));
      if (inTurn && promptSeen && text !== "") {
        out.push({ sessionUpdate: "user_message_chunk", content: textBlock(text) });
      }
      promptSeen = true;
    } else if (entry.kind === "message" && payload.role === "assistant") {
      const text = promptText(payload.content);
      if (text.trim() !== "") {
        out.push({ sessionUpdate: "agent_message_chunk", content: textBlock(text) });
      }
    } else if (entry.kind === "tool_call" && Array.isArray(payload.calls)) {
      pending = payload.calls.map((call, index) => {
        const fn = record(record(call).function);
        const id = String(record(call).id || `${entry.id}:${index}`);
        return { id, name: String(fn.name ?? "?"), args: parseArguments(fn.arguments) };
      });
      for (const call of pending) {
        out.push(...planUpdate(call.name, call.args));
        out.push(toolCallStart(call.id, call.name, call.args, workspace, "pending"));
      }
    } else if (entry.kind === "tool_result" && Array.isArray(payload.results)) {
      payload.results.forEach((result, index) => {
        const call = pending[index];
        if (!call) return;
        out.push(toolCallEnd(call.id, call.name, call.args, !failed(result), result, workspace));
      });
      pending = [];
    }
  }
  return out;
}
