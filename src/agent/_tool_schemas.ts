/**
 * The schemas and names of a step's model tools, built once per tool list and shared by every
 * call that offers the same tools (the agent hands each step the same list while the tool set is
 * unchanged): no `toSchema()` objects and no name array per call. The shared schemas are frozen,
 * so the chat body can reuse a list's JSON by the list's identity (`_chat_tools_json.ts`).
 *
 * @module
 */
import type { Tool } from "../tools/tool.ts";
import type { ChatTool } from "./model_client.ts";

/** A tool list's shared request parts. */
export interface ToolListParts {
  /** The tools' schemas (frozen array of frozen schemas), or null when there are no tools. */
  readonly schemas: readonly ChatTool[] | null;
  /** The tools' names (frozen). */
  readonly names: readonly string[];
}

interface Entry extends ToolListParts {
  /** The tools the parts were built from, to notice a list changed in place. */
  readonly tools: readonly Tool[];
}

const byList = new WeakMap<readonly Tool[], Entry>();
const shared = new WeakSet<readonly ChatTool[]>();
const NO_TOOLS: ToolListParts = Object.freeze({ schemas: null, names: Object.freeze([]) });

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function frozenSchema(tool: Tool): ChatTool {
  const schema = tool.toSchema();
  Object.freeze(schema.function);
  return Object.freeze(schema);
}

/** The schemas and names of `tools`: the same objects as last time for the same list. */
export function toolListParts(tools: readonly Tool[]): ToolListParts {
  if (tools.length === 0) return NO_TOOLS;
  const cached = byList.get(tools);
  if (cached !== undefined && sameItems(cached.tools, tools)) return cached;
  const schemas = Object.freeze(tools.map(frozenSchema));
  shared.add(schemas);
  const entry: Entry = {
    tools: [...tools],
    schemas,
    names: Object.freeze(tools.map((tool) => tool.name)),
  };
  byList.set(tools, entry);
  return entry;
}

/** True for a schema list made by {@link toolListParts} (it and its schemas never change). */
export function isSharedToolList(tools: readonly ChatTool[]): boolean {
  return shared.has(tools);
}
