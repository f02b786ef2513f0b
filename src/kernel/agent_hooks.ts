/**
 * Agent-loop interception: the {@link AgentHooks} facade that chains `beforeLlmCall` /
 * `beforeToolCall`, isolates faults and fires the after-hooks (payload classes: `agent_calls.ts`).
 *
 * @module
 */
import { metaLogger } from "./_log.ts";
import type { HookRuntime } from "./hook_runtime.ts";
import { describe, isThenable } from "./hook_runtime.ts";
import type { TurnState } from "./turn.ts";
import {
  isDecisionLike,
  LlmCallDecision,
  toLlmCallDecision,
  ToolCallDecision,
  toToolCallDecision,
} from "./decisions.ts";
import type { HookImplementation } from "./plugin.ts";
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
    for (const impl of this.#runtime.implementations("beforeLlmCall")) {
      const value = await this.#call(impl, { request: current, state });
      if (value instanceof Failure) {
        if (impl.failClosed) return [current, LlmCallDecision.finish(value.message)];
        continue;
      }
      if (value === null || value === undefined) continue;
      if (value instanceof LlmCallRequest) {
        current = value;
        continue;
      }
      if (isDecisionLike(value)) {
        try {
          return [current, toLlmCallDecision(value as LlmCallDecision)];
        } catch (error) {
          const failure = hookFailed(impl, error);
          if (impl.failClosed) return [current, LlmCallDecision.finish(failure.message)];
          continue;
        }
      }
      const expected = "LlmCallRequest | LlmCallDecision | None";
      const failure = badReturn("beforeLlmCall", impl, value, expected);
      if (impl.failClosed) return [current, LlmCallDecision.finish(failure.message)];
    }
    return [current, null];
  }

  /** Calls every `afterLlmCall` implementation. */
  async afterLlmCall(
    request: LlmCallRequest,
    result: LlmCallResult,
    state: TurnState,
  ): Promise<void> {
    for (const impl of this.#runtime.implementations("afterLlmCall")) {
      await this.#call(impl, { request, result, state });
    }
  }

  /** Chains `beforeToolCall`; returns the final call and the decision (a fresh proceed at the end). */
  async beforeToolCall(call: ToolCall, state: TurnState): Promise<[ToolCall, ToolCallDecision]> {
    let current = call;
    for (const impl of this.#runtime.implementations("beforeToolCall")) {
      const value = await this.#call(impl, { call: current, state });
      if (value instanceof Failure) {
        if (impl.failClosed) return [current, ToolCallDecision.deny(value.message)];
        continue;
      }
      if (value === null || value === undefined) continue;
      let decision: ToolCallDecision;
      if (isDecisionLike(value)) {
        try {
          decision = toToolCallDecision(value as ToolCallDecision);
        } catch (error) {
          const failure = hookFailed(impl, error);
          if (impl.failClosed) return [current, ToolCallDecision.deny(failure.message)];
          continue;
        }
      } else {
        const failure = badReturn("beforeToolCall", impl, value, "ToolCallDecision | None");
        if (impl.failClosed) return [current, ToolCallDecision.deny(failure.message)];
        continue;
      }
      if (decision.action === "proceed") {
        if (decision.arguments !== null) {
          current = current.with({ arguments: { ...decision.arguments } });
        }
        continue;
      }
      return [current, decision];
    }
    return [current, ToolCallDecision.proceed()];
  }

  /** Calls every `afterToolCall` implementation with the same mutable result. */
  async afterToolCall(call: ToolCall, result: ToolCallResult, state: TurnState): Promise<void> {
    for (const impl of this.#runtime.implementations("afterToolCall")) {
      await this.#call(impl, { call, result, state });
    }
  }

  async #call(impl: HookImplementation, args: Record<string, unknown>): Promise<unknown> {
    try {
      let value = impl.fn.call(impl.plugin, args);
      if (isThenable(value)) value = await value;
      return value;
    } catch (error) {
      if (isCancellation(error)) throw error;
      return hookFailed(impl, error);
    }
  }
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
