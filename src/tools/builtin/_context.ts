/**
 * Small helpers shared by the builtin tools: the tape of a tool context and the keyword-only
 * marker of input-model tools. (The workspace is `workspaceFromState` of
 * `environment/from_state.ts`.)
 *
 * @module
 */
import { Tape } from "../../tape/tape.ts";
import type { Tool, ToolContext } from "../tool.ts";

/** The tape of a tool context; a context without a {@link Tape} is a programming error. */
export function tapeOf(context: ToolContext, tool: string): Tape {
  const tape = context.tape;
  if (tape instanceof Tape) return tape;
  throw new TypeError(
    `Tool '${tool}' needs a Tape in its context, got ${tape === null ? "null" : typeof tape}`,
  );
}

/** The session id of a turn state as a string, or `fallback` when it has none. */
export function sessionIdOf(state: Readonly<Record<string, unknown>>, fallback: string): string {
  const value = state.session_id;
  return value === null || value === undefined ? fallback : String(value);
}

const _keywordOnly = new WeakSet<Tool>();

/** Marks `tool` as keyword-only (an input-model tool): comma commands reject positional values. */
export function markKeywordOnly(tool: Tool): Tool {
  _keywordOnly.add(tool);
  return tool;
}

/**
 * True for tools marked with {@link markKeywordOnly} (`tape.search`, `subagent`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { isKeywordOnlyTool } from "@bub/core/tools";
 * assert.equal(isKeywordOnlyTool(defineTool({ name: "echo", handler: (args) => args })), false);
 * ```
 */
export function isKeywordOnlyTool(tool: Tool): boolean {
  return _keywordOnly.has(tool);
}
