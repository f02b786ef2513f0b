/** Test helper: an AgentHooks facade over a real plugin manager and hook runtime. */
import { AgentHooks } from "../../src/kernel/agent_hooks.ts";
import { HookRuntime } from "../../src/kernel/hook_runtime.ts";
import { PluginManager } from "../../src/kernel/plugin.ts";

/** Registers `plugins` in order (the last one has the highest priority) and returns the facade. */
export function agentHooksWith(...plugins: object[]): AgentHooks {
  const manager = new PluginManager();
  for (const plugin of plugins) manager.register(plugin);
  return new AgentHooks(new HookRuntime(manager));
}
