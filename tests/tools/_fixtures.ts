/** Test helpers of the tool executor tests: an AgentHooks facade, small tools and a context. */
import type { ToolCall, ToolCallResult } from "../../src/kernel/agent_hooks.ts";
import { AgentHooks } from "../../src/kernel/agent_hooks.ts";
import { HookRuntime } from "../../src/kernel/hook_runtime.ts";
import { PluginManager } from "../../src/kernel/plugin_manager.ts";
import type { TurnState } from "../../src/kernel/turn.ts";
import { defineTool, type Tool, type ToolContext } from "../../src/tools/tool.ts";

/** Registers `plugins` in order (the last one has the highest priority) and returns the facade. */
export function agentHooksWith(...plugins: object[]): AgentHooks {
  const manager = new PluginManager();
  for (const plugin of plugins) manager.register(plugin);
  return new AgentHooks(new HookRuntime(manager));
}

/** The arguments an `afterToolCall` implementation receives. */
export type After = { call: ToolCall; result: ToolCallResult; state: TurnState };

/** A tool returning a copy of its arguments. */
export function echoTool(name = "echo"): Tool {
  return defineTool({ name, parameters: { type: "object" }, handler: (args) => ({ ...args }) });
}

/** A tool that throws `error`. */
export function boom(name = "boom", error: unknown = new Error("boom")): Tool {
  return defineTool({
    name,
    handler: () => {
      throw error;
    },
  });
}

/** A tool context with a stand-in tape. */
export function context(state: TurnState = {}, runId = "run-1"): ToolContext {
  return { tape: { name: "tape-1" }, runId, state };
}
