/**
 * `AgentHost`: the part of the framework an agent (`Agent`) uses — the agent hooks, the running
 * scope's tape store, the tape context and sidecars, and the prompt hooks. `agentHost()` of the
 * framework gives one that does not call back into the framework; a `KernelFramework` itself is
 * one too, and tests and embedders may pass any object with these members.
 *
 * @module
 */
import type { AgentHooks } from "./agent_hooks.ts";
import type { Envelope } from "./envelope.ts";
import type { TapeContext, TapeSidecar } from "./tape_context.ts";
import type { Prompt, TurnState } from "./turn.ts";

/**
 * What an agent needs of its framework.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework } from "@bub/core";
 * import type { AgentHost } from "@bub/core/agent";
 * const host: AgentHost = new BubFramework().agentHost();
 * assert.equal(typeof host.getSystemPrompt({ prompt: "hi", state: {} }), "string");
 * ```
 */
export interface AgentHost {
  /** Runtime data; tape archives default to `<home>/tapes`. */
  readonly home: string;
  /** The agent-loop interception facade (`beforeLlmCall`, ...). */
  getAgentHooks(): AgentHooks;
  /** The tape store of the running scope, or null outside one. */
  getTapeStore<T extends object = object>(): T | null;
  /** How model contexts are rebuilt from tapes (`buildTapeContext`). */
  buildTapeContext(): TapeContext;
  /** The tape sidecars to mount (`provideTapeSidecar`). */
  getTapeSidecars(): readonly TapeSidecar[];
  /** The next step's user message (`continuePrompt`), or null. */
  continuePrompt(
    args: { prompt: Prompt | null; tape: unknown; state: unknown },
  ): Promise<string | null>;
  /** The system prompt of a step (`systemPrompt` fragments joined). */
  getSystemPrompt(args: { prompt: Prompt; state: TurnState }): string;
  /** The prompt of a steering message (`buildPrompt`). */
  buildPrompt(message: Envelope, sessionId: string, state: TurnState): Promise<Prompt>;
}
