/**
 * The agent-loop payloads: the LLM call request and result, the tool call and its result that
 * the agent hooks (`beforeLlmCall`, `afterLlmCall`, `beforeToolCall`, `afterToolCall`) receive.
 *
 * @module
 */

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
