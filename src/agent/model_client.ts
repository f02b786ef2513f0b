/**
 * The `ModelClient` contract: one streamed model call in the OpenAI chat-completions message
 * format, answered by a small union of {@link ModelEvent}s. The provider-backed implementation
 * lives in `providers.ts`; it notes itself as Bub's own ({@link markOwnClient}).
 *
 * @module
 */

/**
 * The version tag every {@link ModelClient} carries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MODEL_CLIENT_SPECIFICATION_VERSION, ProviderModelClient } from "@bub/core/agent";
 * assert.equal(new ProviderModelClient().specificationVersion, MODEL_CLIENT_SPECIFICATION_VERSION);
 * ```
 */
export const MODEL_CLIENT_SPECIFICATION_VERSION = "bub.model-client.v1" as const;

/**
 * A content part of a chat message (OpenAI chat format).
 *
 * @example
 * ```ts
 * import type { ChatContentPart } from "@bub/core/agent";
 * const parts: ChatContentPart[] = [
 *   { type: "text", text: "What is this?" },
 *   { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
 * ];
 * ```
 */
export type ChatContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: string } }
  | { type: "input_audio"; input_audio: { data: string; format: string } }
  | { type: string; [key: string]: unknown };

/**
 * A tool call inside an assistant message (OpenAI chat format).
 *
 * @example
 * ```ts
 * import type { ChatToolCall } from "@bub/core/agent";
 * const call: ChatToolCall = { id: "call_1", type: "function", function: { name: "bash", arguments: '{"cmd":"ls"}' } };
 * ```
 */
export interface ChatToolCall {
  /** The call id, echoed by the tool message answering it. */
  id: string;
  /** Always `"function"`. */
  type?: "function";
  /** The function name and its JSON-encoded arguments. */
  function: { name: string; arguments: string };
}

/**
 * One chat message in the OpenAI chat-completions format.
 *
 * @example
 * ```ts
 * import type { ChatMessage } from "@bub/core/agent";
 * const messages: ChatMessage[] = [
 *   { role: "system", content: "Be brief." },
 *   { role: "user", content: "hi" },
 * ];
 * ```
 */
export type ChatMessage =
  | { role: "system" | "developer"; content: string | ChatContentPart[] }
  | { role: "user"; content: string | ChatContentPart[] }
  | {
    role: "assistant";
    content?: string | ChatContentPart[] | null;
    tool_calls?: ChatToolCall[] | null;
    reasoning_content?: string | null;
  }
  | {
    role: "tool";
    tool_call_id: string;
    content: string | ChatContentPart[] | null;
    name?: string;
  };

/**
 * A function tool schema as sent to providers.
 *
 * @example
 * ```ts
 * import type { ChatTool } from "@bub/core/agent";
 * const tool: ChatTool = {
 *   type: "function",
 *   function: { name: "bash", description: "Run a command", parameters: { type: "object" } },
 * };
 * ```
 */
export interface ChatTool {
  /** Always `"function"`. */
  type: "function";
  /** The model-facing name, description and JSON Schema of the parameters. */
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/**
 * Token usage in the OpenAI chat shape, null fields dropped.
 *
 * @example
 * ```ts
 * import type { ChatUsage, ModelEvent } from "@bub/core/agent";
 * const usage: ChatUsage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };
 * const event: ModelEvent = { type: "usage", usage };
 * ```
 */
export interface ChatUsage {
  /** Input tokens. */
  prompt_tokens?: number;
  /** Output tokens. */
  completion_tokens?: number;
  /** Input plus output tokens. */
  total_tokens?: number;
  /** Cached input tokens, when the provider reports them. */
  prompt_tokens_details?: { cached_tokens?: number; [key: string]: unknown };
  /** Provider-specific extra fields (e.g. `completion_tokens_details`). */
  [key: string]: unknown;
}

/**
 * One model call.
 *
 * @example
 * ```ts
 * import type { ModelRequest } from "@bub/core/agent";
 * const request: ModelRequest = {
 *   model: "openai:gpt-4o",
 *   messages: [{ role: "user", content: "hi" }],
 *   maxTokens: 256,
 *   reasoningEffort: "low",
 * };
 * ```
 */
export interface ModelRequest {
  /** The full model id, `provider:model` (see `parseModelId`). */
  model: string;
  /** The conversation in the OpenAI chat format. */
  messages: readonly ChatMessage[];
  /** Tool schemas; null or empty means no tools. */
  tools?: readonly ChatTool[] | null;
  /** The `max_tokens` of the request. */
  maxTokens?: number | null;
  /** Free-form completion arguments, sent first (managed fields win). */
  completionArgs?: Record<string, unknown> | null;
  /** Sent as `reasoning_effort` (or the provider's equivalent); overrides `completionArgs`. */
  reasoningEffort?: string | null;
}

/**
 * Why the model stopped.
 *
 * @example
 * ```ts
 * import type { ModelFinishReason } from "@bub/core/agent";
 * const truncated = (reason: ModelFinishReason): boolean => reason === "length";
 * ```
 */
export type ModelFinishReason =
  | "stop"
  | "length"
  | "content-filter"
  | "tool-calls"
  | "error"
  | "interrupted"
  | "other";

/**
 * What a model call yields, in order: one `start` (the provider accepted the call), any number of
 * `text` / `reasoning` deltas and assembled `tool_call`s, then `usage` (when reported) and `finish`.
 *
 * @example
 * ```ts
 * import type { ModelEvent } from "@bub/core/agent";
 * function textOf(events: readonly ModelEvent[]): string {
 *   return events.map((event) => event.type === "text" ? event.delta : "").join("");
 * }
 * textOf([{ type: "text", delta: "hel" }, { type: "text", delta: "lo" }]);
 * ```
 */
export type ModelEvent =
  | { type: "start"; provider: string; model: string }
  | { type: "text"; delta: string }
  | { type: "reasoning"; delta: string }
  | { type: "tool_call"; index: number; id: string; name: string; arguments: string }
  | { type: "usage"; usage: ChatUsage }
  | { type: "finish"; reason: ModelFinishReason; rawReason: string | null };

/**
 * Options of {@link ModelClient.stream}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ModelStreamOptions, ProviderModelClient } from "@bub/core/agent";
 * const options: ModelStreamOptions = { signal: AbortSignal.abort(new Error("cancelled")) };
 * const stream = new ProviderModelClient().stream({ model: "openai:gpt-4o", messages: [] }, options);
 * await assert.rejects(stream.next(), /cancelled/);
 * ```
 */
export interface ModelStreamOptions {
  /** Aborts the HTTP request and the iteration; the iteration then throws `signal.reason`. */
  signal?: AbortSignal;
  /**
   * Called whenever bytes arrive from the provider (the response, each body chunk), so the caller
   * can tell a slow stream from a stalled one. Clients that cannot tell may ignore it: then
   * only events count as activity.
   */
  onActivity?: () => void;
  /**
   * The most UTF-8 bytes of text, reasoning and tool-call arguments the call may stream (the
   * `max_answer_bytes` setting). A client that honours it stops the provider stream once the
   * count passes the limit and fails with a `provider` `BubError` naming the setting; the model
   * runner checks the events it gets against the same limit. Undefined: no limit.
   */
  maxAnswerBytes?: number;
}

/**
 * Streams one model call.
 *
 * Contract: errors thrown before the `start` event are call-creation failures (bad model id,
 * unsupported provider, HTTP error status) and may be retried on a fallback model; errors after
 * it happened while consuming the stream. Provider failures are `BubError`s (kind `provider`, or
 * `temporary` for 429/5xx) whose message keeps the provider's own text, so context-length errors
 * stay recognizable. Aborting `signal` throws its reason.
 *
 * @example A scripted client
 * ```ts
 * import type { ModelClient, ModelEvent, ModelRequest } from "@bub/core/agent";
 * const client: ModelClient = {
 *   specificationVersion: "bub.model-client.v1",
 *   async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
 *     yield { type: "start", provider: "test", model: request.model };
 *     yield { type: "text", delta: "hello" };
 *     yield { type: "finish", reason: "stop", rawReason: "stop" };
 *   },
 * };
 * ```
 */
export interface ModelClient {
  /** Always {@link MODEL_CLIENT_SPECIFICATION_VERSION}. */
  readonly specificationVersion: typeof MODEL_CLIENT_SPECIFICATION_VERSION;
  /** Starts the call; nothing happens until the iterable is iterated. */
  stream(request: ModelRequest, options?: ModelStreamOptions): AsyncIterable<ModelEvent>;
}

const ownClients = new WeakSet<object>();

/**
 * Notes that `client` is Bub's own: its `stream` builds the request body from the request it is
 * handed and changes no message (the model runner then hands it a history it need not check).
 */
export function markOwnClient(client: object): void {
  ownClients.add(client);
}

/**
 * True for a client noted by {@link markOwnClient}.
 *
 * @example
 * ```ts
 * import { isOwnClient, markOwnClient } from "./model_client.ts";
 * const client = {};
 * markOwnClient(client);
 * console.assert(isOwnClient(client));
 * ```
 */
export function isOwnClient(client: object): boolean {
  return ownClients.has(client);
}
