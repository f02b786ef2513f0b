/**
 * Unknown-tool recovery: the builtin `beforeToolCall` replaces a call to a tool that does not
 * exist with guidance, so the turn goes on.
 *
 * @module
 */
import { ToolCallDecision } from "../kernel/agent_hooks.ts";
import type { ToolCall } from "../kernel/agent_hooks.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { modelToolName, NAMELESS_CALL_MESSAGE } from "../tools/tool.ts";
import { closeMatches } from "./_difflib.ts";

/**
 * The guidance for a call to `name`, given the known model-facing names (a blank name: the
 * call has no name).
 */
export function unknownToolGuidance(name: string, known: readonly string[]): string {
  if (name.trim() === "") return NAMELESS_CALL_MESSAGE;
  const matches = closeMatches(name, known, 3, 0.6);
  if (matches.length > 0) {
    return `Tool \`${name}\` does not exist. Did you mean one of the following?\n${
      matches.map((match) => `- ${match}`).join("\n")
    }`;
  }
  if (known.includes("skill")) {
    return `Tool \`${name}\` does not exist. Invoke the \`skill\` tool to list available skills.`;
  }
  return `Tool \`${name}\` does not exist. No similar tool is available.`;
}

/**
 * The builtin `beforeToolCall`: null for any agent-usable registry tool (by model-facing name),
 * else a `replace` decision carrying {@link unknownToolGuidance}.
 */
export function recoverUnknownTool(
  call: ToolCall,
  registry: ToolRegistry,
): ToolCallDecision | null {
  for (const tool of registry) {
    if (tool.agentUse && modelToolName(tool.name) === call.tool) return null;
  }
  const known = registry.list().filter((tool) => tool.agentUse).map((tool) =>
    modelToolName(tool.name)
  );
  return ToolCallDecision.replace(unknownToolGuidance(call.tool, known));
}
