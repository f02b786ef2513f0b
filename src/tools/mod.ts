/**
 * Tools: {@link defineTool}, the registry, the executor, call reporting, the tools prompt and the
 * builtin tool catalogue.
 *
 * @example Define, register and run a tool
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { ToolExecutor, ToolRegistry } from "@bub/core/tools";
 * import { z } from "zod";
 * const registry = new ToolRegistry([
 *   defineTool({ name: "math.add", parameters: z.object({ a: z.number(), b: z.number() }), handler: ({ a, b }) => a + b }),
 * ]);
 * const tool = registry.get("math.add")!;
 * const { toolResults } = await new ToolExecutor().execute([{ tool, arguments: { a: 2, b: 3 } }]);
 * assert.deepEqual(toolResults, [5]);
 * ```
 *
 * @module
 */
export type { QuitSession } from "./builtin/session.ts";
export {
  type ContextToolOptions,
  defineTool,
  type JsonSchema,
  modelToolName,
  modelTools,
  type PlainToolOptions,
  snakeCaseName,
  type StandardSchemaLike,
  Tool,
  type ToolArgumentIssue,
  ToolArgumentsError,
  type ToolContext,
  type ToolOptionsBase,
  type ToolParameters,
  type ToolSchema,
} from "./tool.ts";
export { defaultToolRegistry, type ResolveToolNamesOptions, ToolRegistry } from "./registry.ts";
export {
  type ExecuteToolsOptions,
  type HeldCall,
  normalizeToolError,
  type ToolExecution,
  ToolExecutor,
  type ToolInvocation,
} from "./executor.ts";
export {
  currentToolCallReporter,
  formatToolArguments,
  reportToolCall,
  type ToolCallReporter,
  withToolCallReporter,
} from "./reporter.ts";
export { renderToolsPrompt } from "./prompt.ts";
export {
  type BuiltinToolDeps,
  createBuiltinTools,
  isKeywordOnlyTool,
  registerBuiltinTools,
} from "./builtin/mod.ts";
export {
  McpManager,
  type McpManagerOptions,
  type McpServerDriver,
  type McpServerState,
  type McpServerStatus,
} from "./mcp/mcp_manager.ts";
export {
  expandServerConfig,
  MCP_SERVERS_KEY,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpServerLimits,
  type McpStdioServerConfig,
  parseMcpServers,
} from "./mcp/config.ts";
export type { McpMedia, McpToolOutput } from "./mcp/_result.ts";
