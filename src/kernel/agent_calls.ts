/**
 * The agent-loop payloads: the LLM call request and result, the tool call and its result that
 * the agent hooks (`beforeLlmCall`, `afterLlmCall`, `beforeToolCall`, `afterToolCall`) receive.
 *
 * @module
 */

/**
 * Fields of {@link LlmCallRequest}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LlmCallRequest } from "@bub/core";
 * import type { LlmCallRequestInit } from "@bub/core/kernel";
 * const init: LlmCallRequestInit = { runId: "r1", model: "openai:gpt-4o", messages: [] };
 * assert.equal(new LlmCallRequest(init).maxTokens, null);
 * ```
 */
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

/**
 * An outgoing LLM request. Frozen: return a new one (see {@link LlmCallRequest.with}) to change it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LlmCallRequest } from "@bub/core";
 * const request = new LlmCallRequest({
 *   runId: "r1",
 *   model: "openai:gpt-4o",
 *   messages: [{ role: "user", content: "hi" }],
 * });
 * const cheaper = request.with({ model: "openai:gpt-4o-mini" });
 * assert.equal(cheaper.model, "openai:gpt-4o-mini");
 * assert.equal(cheaper.messages, request.messages);
 * ```
 */
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

/**
 * Fields of {@link LlmCallResult}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LlmCallResult } from "@bub/core";
 * import type { LlmCallResultInit } from "@bub/core/kernel";
 * const init: LlmCallResultInit = { runId: "r1", text: "hello", durationMs: 12 };
 * assert.equal(new LlmCallResult(init).text, "hello");
 * ```
 */
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

/**
 * The terminal outcome of one LLM call. Frozen.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LlmCallResult } from "@bub/core";
 * const result = new LlmCallResult({ runId: "r1", text: "hello", usage: { total_tokens: 7 } });
 * assert.equal(result.error, null);
 * assert.deepEqual(result.toolCalls, []);
 * ```
 */
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

/**
 * Fields of {@link ToolCall}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolCall } from "@bub/core";
 * import type { ToolCallInit } from "@bub/core/kernel";
 * const init: ToolCallInit = { tool: "fs.read", arguments: { path: "README.md" } };
 * assert.equal(new ToolCall(init).tool, "fs.read");
 * ```
 */
export interface ToolCallInit {
  /** The run id; `""` without a tool context. */
  runId?: string;
  /** The tool name as invoked. */
  tool: string;
  /** The invocation arguments. */
  arguments: Record<string, unknown>;
}

/**
 * One tool invocation. Frozen.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolCall } from "@bub/core";
 * const call = new ToolCall({ runId: "r1", tool: "bash", arguments: { cmd: "ls" } });
 * const safer = call.with({ arguments: { cmd: "ls -la" } });
 * assert.equal(safer.tool, "bash");
 * assert.deepEqual(safer.arguments, { cmd: "ls -la" });
 * ```
 */
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

/**
 * Fields of {@link ToolCallResult}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolCallResult } from "@bub/core";
 * import type { ToolCallResultInit } from "@bub/core/kernel";
 * const init: ToolCallResultInit = { tool: "bash", arguments: {}, result: "ok" };
 * assert.equal(new ToolCallResult(init).result, "ok");
 * ```
 */
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
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolCallResult } from "@bub/core";
 * const result = new ToolCallResult({ tool: "bash", arguments: { cmd: "ls" }, result: "a\nb" });
 * result.result = "[redacted]"; // an afterToolCall hook may rewrite what the model sees
 * assert.equal(result.result, "[redacted]");
 * ```
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
