/**
 * Tools: {@link defineTool}, the registry, the executor, call reporting, the tools prompt and the
 * builtin tool catalogue.
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
