/**
 * The `<available_tools>` block of the system prompt.
 *
 * @module
 */
import { modelToolName, type Tool } from "./tool.ts";

/** The parameters of `tool` in schema order, `?` marking the optional ones: `a, b?`. */
export function toolParameterList(tool: Tool): string {
  const properties = tool.parameters.properties;
  const required = Array.isArray(tool.parameters.required) ? tool.parameters.required : [];
  const names = typeof properties === "object" && properties !== null
    ? Object.keys(properties)
    : [];
  return names.map((name) => (required.includes(name) ? name : `${name}?`)).join(", ");
}

function signature(tool: Tool): string {
  return `${modelToolName(tool.name)}(${toolParameterList(tool)})`;
}

/**
 * Renders the agent-usable tools as `<available_tools>` lines
 * `- <model name>(<p1>, <p2>?, …): <description>`, parameters in schema order with `?` marking
 * optional ones and `: <description>` omitted when empty. Returns `""` when no tool is
 * agent-usable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { renderToolsPrompt } from "@bub/core/tools";
 * const read = defineTool({
 *   name: "fs.read",
 *   description: "Read a file",
 *   parameters: { type: "object", properties: { path: { type: "string" }, limit: { type: "integer" } }, required: ["path"] },
 *   handler: () => "",
 * });
 * assert.ok(renderToolsPrompt([read]) === "<available_tools>\n- fs_read(path, limit?): Read a file\n</available_tools>");
 * ```
 */
export function renderToolsPrompt(tools: Iterable<Tool>): string {
  const lines: string[] = [];
  for (const tool of tools) {
    if (!tool.agentUse) continue;
    const head = `- ${signature(tool)}`;
    lines.push(tool.description ? `${head}: ${tool.description}` : head);
  }
  if (lines.length === 0) return "";
  return ["<available_tools>", ...lines, "</available_tools>"].join("\n");
}
