/**
 * Agent-loop interception: payload classes and the {@link AgentHooks} facade that chains
 * `beforeLlmCall` / `beforeToolCall`, isolates faults and fires the after-hooks.
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

export { LlmCallDecision, ToolCallDecision } from "./decisions.ts";

/** Fields of {@link LlmCallRequest}. */
export interface LlmCallRequestInit {
  /** Correlates hook payloads with tape entries (`meta.run_id`). */
  runId: string;
  /** `provider:model` actually requested. */
  model: string;
  /** The full chat messages of this call. */
  messages: Array<Record<string, unknown>>;
  /** Model-facing tool names; observational only. */
  toolNames?: readonly string[];
  /** The output token limit. */
  maxTokens?: number | null;
}

/** An outgoing LLM request. Frozen: return a new one (see {@link LlmCallRequest.with}) to change it. */
export class LlmCallRequest {
  /** Correlates hook payloads with tape entries. */
  readonly runId: string;
  /** `provider:model`. */
  readonly model: string;
  /** The chat messages. */
  readonly messages: Array<Record<string, unknown>>;
  /** Model-facing tool names. */
  readonly toolNames: readonly string[];
  /** The output token limit, or null. */
  readonly maxTokens: number | null;

  /**
   * Creates the object.
   *
   * @param init the fields
   */
  constructor(init: LlmCallRequestInit) {
    this.runId = init.runId;
    this.model = init.model;
    this.messages = init.messages;
    this.toolNames = Object.freeze([...(init.toolNames ?? [])]);
    this.maxTokens = init.maxTokens ?? null;
    Object.freeze(this);
  }

  /** A copy with some fields replaced. */
  with(changes: Partial<LlmCallRequestInit>): LlmCallRequest {
    return new LlmCallRequest({ ...this, ...changes });
  }
}

/** Fields of {@link LlmCallResult}. */
export interface LlmCallResultInit {
  /** The run id. */
  runId: string;
  /** Accumulated text; null when empty. */
  text?: string | null;
  /** Serialized tool calls. */
  toolCalls?: Array<Record<string, unknown>>;
  /** Provider usage. */
  usage?: Record<string, unknown> | null;
  /** The original error, for a failed call. */
  error?: unknown;
  /** Integer milliseconds from the provider call to the terminal point. */
  durationMs?: number;
}

/** The terminal outcome of one LLM call. Frozen. */
export class LlmCallResult {
  /** The run id. */
  readonly runId: string;
  /** Accumulated text, or null. */
  readonly text: string | null;
  /** Serialized tool calls. */
  readonly toolCalls: Array<Record<string, unknown>>;
  /** Provider usage, or null. */
  readonly usage: Record<string, unknown> | null;
  /** The original error object, or null. */
  readonly error: unknown;
  /** Integer milliseconds. */
  readonly durationMs: number;

  /**
   * Creates the object.
   *
   * @param init the fields
   */
  constructor(init: LlmCallResultInit) {
    this.runId = init.runId;
    this.text = init.text ? init.text : null;
    this.toolCalls = init.toolCalls ?? [];
    this.usage = init.usage ?? null;
    this.error = init.error ?? null;
    this.durationMs = Math.trunc(init.durationMs ?? 0);
    Object.freeze(this);
  }
}

/** Fields of {@link ToolCall}. */
export interface ToolCallInit {
  /** The run id; `""` without a tool context. */
  runId?: string;
  /** The tool name as invoked. */
  tool: string;
  /** The invocation arguments. */
  arguments: Record<string, unknown>;
}

/** One tool invocation. Frozen. */
export class ToolCall {
  /** The run id. */
  readonly runId: string;
  /** The tool name as invoked (model-facing during agent steps). */
  readonly tool: string;
  /** A copy of the arguments. */
  readonly arguments: Record<string, unknown>;

  /**
   * Creates the object.
   *
   * @param init the fields
   */
  constructor(init: ToolCallInit) {
    this.runId = init.runId ?? "";
    this.tool = init.tool;
    this.arguments = { ...init.arguments };
    Object.freeze(this);
  }

  /** A copy with some fields replaced. */
  with(changes: Partial<ToolCallInit>): ToolCall {
    return new ToolCall({ ...this, ...changes });
  }
}

/** Fields of {@link ToolCallResult}. */
export interface ToolCallResultInit {
  /** The run id. */
  runId?: string;
  /** The tool name. */
  tool: string;
  /** The effective arguments. */
  arguments: Record<string, unknown>;
  /** The model-facing value. */
  result?: unknown;
  /** The original error. */
  error?: unknown;
  /** Integer milliseconds. */
  durationMs?: number;
}

/**
 * The outcome of one tool invocation. Mutable and shared by every `afterToolCall`
 * implementation: assigning `result` changes what the model sees.
 */
export class ToolCallResult {
  /** The run id. */
  runId: string;
  /** The tool name. */
  tool: string;
  /** The effective (possibly rewritten) arguments. */
  arguments: Record<string, unknown>;
  /** The model-facing value; null on failure until a hook sets it. */
  result: unknown;
  /** The original error (a `BubError` for tool failures and denials), or null. */
  error: unknown;
  /** Integer milliseconds. */
  durationMs: number;

  /**
   * Creates the object.
   *
   * @param init the fields
   */
  constructor(init: ToolCallResultInit) {
    this.runId = init.runId ?? "";
    this.tool = init.tool;
    this.arguments = init.arguments;
    this.result = init.result ?? null;
    this.error = init.error ?? null;
    this.durationMs = Math.trunc(init.durationMs ?? 0);
  }
}

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
