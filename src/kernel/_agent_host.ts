/**
 * Private: the {@link AgentHost} a framework hands its agent, built from the kernel's parts so
 * that an agent step never calls back into `KernelFramework`.
 *
 * @module
 */
import type { AgentHooks } from "./agent_hooks.ts";
import type { AgentHost } from "./agent_host.ts";
import type { FrameworkHooks } from "./_framework_hooks.ts";
import type { HookRuntime } from "./hook_runtime.ts";
import type { RuntimeResources } from "./_runtime_resources.ts";
import { buildTurnPrompt } from "./_turn_state.ts";

/** What the agent host is made of. */
export interface AgentHostParts {
  /** The framework's home. */
  readonly home: string;
  /** The agent-loop facade. */
  readonly agentHooks: AgentHooks;
  /** The framework's validated folds. */
  readonly hooks: FrameworkHooks;
  /** Hook dispatch. */
  readonly runtime: HookRuntime;
  /** The running scope. */
  readonly resources: RuntimeResources;
}

/** An {@link AgentHost} over the kernel's parts (the same answers as the framework's methods). */
export function agentHostOf(parts: AgentHostParts): AgentHost {
  const { agentHooks, hooks, runtime, resources } = parts;
  return {
    home: parts.home,
    getAgentHooks: () => agentHooks,
    getTapeStore: <T extends object = object>() => resources.tapeStore as T | null,
    buildTapeContext: () => hooks.buildTapeContext(),
    getTapeSidecars: () => hooks.getTapeSidecars(),
    continuePrompt: (args) => hooks.continuePrompt(args),
    getSystemPrompt: (args) => hooks.getSystemPrompt(args),
    buildPrompt: (message, sessionId, state) => buildTurnPrompt(runtime, message, sessionId, state),
  };
}
