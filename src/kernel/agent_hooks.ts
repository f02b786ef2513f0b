/**
 * Agent-loop interception: the {@link AgentHooks} facade that chains `beforeLlmCall` /
 * `beforeToolCall`, isolates faults and fires the after-hooks (payload classes: `agent_calls.ts`).
 *
 * @module
 */
import { metaLogger } from "./_log.ts";
import { type HookVisit, type WalkArgs, walkHook } from "./_hook_walk.ts";
import type { HookRuntime } from "./hook_runtime.ts";
import { describe } from "./hook_results.ts";
import type { TurnState } from "./turn.ts";
import {
  isDecisionLike,
  LlmCallDecision,
  toLlmCallDecision,
  ToolCallDecision,
  toToolCallDecision,
} from "./decisions.ts";
import type { HookImplementation } from "./plugin_manager.ts";
import {
  LlmCallRequest,
  type LlmCallResult,
  type ToolCall,
  type ToolCallResult,
} from "./agent_calls.ts";

export { LlmCallDecision, ToolCallDecision } from "./decisions.ts";

export {
  LlmCallRequest,
  type LlmCallRequestInit,
  LlmCallResult,
  type LlmCallResultInit,
  ToolCall,
  type ToolCallInit,
  ToolCallResult,
  type ToolCallResultInit,
} from "./agent_calls.ts";

/**
 * The agent-loop interception facade over a {@link HookRuntime}. Implementations run in
 * priority order. Decisions are recognised by shape (see {@link toToolCallDecision}). An
 * implementation that throws is logged (`hook.agent_hook_failed`) and skipped, one that returns
 * the wrong type is logged (`hook.agent_hook_bad_return`) and ignored, unless it is fail-closed
 * (a `policy: true` plugin or `hookimpl(fn, { failClosed: true })`): then a failing or malformed
 * `beforeToolCall` denies the call and a failing `beforeLlmCall` finishes the LLM call, each
 * with the error message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubFramework, definePlugin, ToolCall } from "@bub/core";
 * const bub = new BubFramework();
 * bub.register(definePlugin({
 *   name: "no-rm",
 *   beforeToolCall: ({ call }) =>
 *     String(call.arguments.cmd).startsWith("rm") ? { action: "deny", reason: "no rm" } : null,
 * }));
 * const [, decision] = await bub.getAgentHooks().beforeToolCall(
 *   new ToolCall({ tool: "bash", arguments: { cmd: "rm -rf /" } }),
 *   {},
 * );
 * assert.equal(decision.action, "deny");
 * ```
 */
export class AgentHooks {
  #runtime: HookRuntime;

  /**
   * Creates the object.
   *
   * @param runtime the dispatcher
   */
  constructor(runtime: HookRuntime) {
    this.#runtime = runtime;
  }

  /** True when `beforeLlmCall` is implemented: some hook sees (and may change) each request. */
  get seesLlmRequests(): boolean {
    return this.#runtime.implementations("beforeLlmCall").length > 0;
  }

  /** True when `afterLlmCall` is implemented: some hook sees each request after its call. */
  get seesLlmResults(): boolean {
    return this.#runtime.implementations("afterLlmCall").length > 0;
  }

  /** True when any agent-loop hook is implemented. */
  get active(): boolean {
    return ["beforeLlmCall", "afterLlmCall", "beforeToolCall", "afterToolCall"].some((hook) =>
      this.#runtime.implementations(hook).length > 0
    );
  }

  /** Chains `beforeLlmCall`; returns the final request and a finish decision or null. */
  async beforeLlmCall(
    request: LlmCallRequest,
    state: TurnState,
  ): Promise<[LlmCallRequest, LlmCallDecision | null]> {
    let current = request;
    let decision: LlmCallDecision | null = null;
    const finish = (impl: HookImplementation, failure: Failure): boolean => {
      if (impl.failClosed) decision = LlmCallDecision.finish(failure.message);
      return impl.failClosed;
    };
    await this.#walk("beforeLlmCall", () => ({ request: current, state }), (value, impl) => {
      if (value instanceof Failure) return finish(impl, value);
      if (value === null || value === undefined) return false;
      if (value instanceof LlmCallRequest) {
        current = value;
        return false;
      }
      if (isDecisionLike(value)) {
        try {
          decision = toLlmCallDecision(value as LlmCallDecision);
          return true;
        } catch (error) {
          return finish(impl, hookFailed(impl, error));
        }
      }
      const expected = "LlmCallRequest | LlmCallDecision | None";
      return finish(impl, badReturn("beforeLlmCall", impl, value, expected));
    });
    return [current, decision];
  }

  /** Calls every `afterLlmCall` implementation. */
  async afterLlmCall(
    request: LlmCallRequest,
    result: LlmCallResult,
    state: TurnState,
  ): Promise<void> {
    await this.#walk("afterLlmCall", { request, result, state }, () => {});
  }

  /** Chains `beforeToolCall`; returns the final call and the decision (a fresh proceed at the end). */
  async beforeToolCall(call: ToolCall, state: TurnState): Promise<[ToolCall, ToolCallDecision]> {
    let current = call;
    let outcome: ToolCallDecision | null = null;
    const deny = (impl: HookImplementation, failure: Failure): boolean => {
      if (impl.failClosed) outcome = ToolCallDecision.deny(failure.message);
      return impl.failClosed;
    };
    await this.#walk("beforeToolCall", () => ({ call: current, state }), (value, impl) => {
      if (value instanceof Failure) return deny(impl, value);
      if (value === null || value === undefined) return false;
      if (!isDecisionLike(value)) {
        return deny(impl, badReturn("beforeToolCall", impl, value, "ToolCallDecision | None"));
      }
      let decision: ToolCallDecision;
      try {
        decision = toToolCallDecision(value as ToolCallDecision);
      } catch (error) {
        return deny(impl, hookFailed(impl, error));
      }
      if (decision.action !== "proceed") {
        outcome = decision;
        return true;
      }
      if (decision.arguments !== null) {
        current = current.with({ arguments: { ...decision.arguments } });
      }
      return false;
    });
    return [current, outcome ?? ToolCallDecision.proceed()];
  }

  /** Calls every `afterToolCall` implementation with the same mutable result. */
  async afterToolCall(call: ToolCall, result: ToolCallResult, state: TurnState): Promise<void> {
    await this.#walk("afterToolCall", { call, result, state }, () => {});
  }

  /** The shared walk, isolated: a throwing implementation becomes a {@link Failure} (cancellation propagates). */
  #walk(hook: string, args: WalkArgs, visit: HookVisit): Promise<void> {
    return walkHook(this.#runtime.implementations(hook), args, visit, { isolate });
  }
}

function isolate(error: unknown, impl: HookImplementation): Failure {
  if (isCancellation(error)) throw error;
  return hookFailed(impl, error);
}

/** An implementation that threw (or returned a malformed decision); `message` is the reason. */
class Failure {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

function hookFailed(impl: HookImplementation, error: unknown): Failure {
  metaLogger.warn(
    "hook.agent_hook_failed hook={hook} adapter={adapter} failClosed={failClosed}: {error}",
    { hook: impl.hook, adapter: impl.pluginName, failClosed: impl.failClosed, error },
  );
  const message = error instanceof Error ? error.message : String(error);
  return new Failure(message || `Hook "${impl.hook}" of plugin "${impl.pluginName}" failed`);
}

function badReturn(
  hook: string,
  impl: HookImplementation,
  value: unknown,
  expected: string,
): Failure {
  const got = describe(value);
  metaLogger.warn(
    "hook.agent_hook_bad_return hook={hook} adapter={adapter} got={got} expected={expected}",
    { hook, adapter: impl.pluginName, got, expected },
  );
  return new Failure(
    `Policy hook "${hook}" of plugin "${impl.pluginName}" returned ${got}, expected ${expected}`,
  );
}

/** True for an abort/cancellation error, which hooks never swallow. */
export function isCancellation(error: unknown): boolean {
  return typeof error === "object" && error !== null &&
    ((error as { name?: unknown }).name === "AbortError" ||
      (error as { name?: unknown }).name === "CancelledError");
}
