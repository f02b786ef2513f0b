/**
 * Scripted replies of the mock LLM server and the factories that build them.
 *
 * @module
 */

/**
 * A tool call the mock model makes.
 *
 * @example
 * ```ts
 * import { mockReply, type MockToolCall } from "@bub/core/testing";
 * const call: MockToolCall = { name: "bash", arguments: { cmd: "ls" } };
 * const reply = mockReply.toolCall(call.name, call.arguments as Record<string, unknown>);
 * ```
 */
export interface MockToolCall {
  /** The call id (default `call_<n>`, or `toolu_<n>` for Anthropic). */
  id?: string;
  /** The function name. */
  name: string;
  /**
   * The arguments: an object (JSON-encoded), a string sent as is (may be malformed JSON), or
   * string pieces sent one per chunk. A whole string is split in two chunks.
   */
  arguments?: Record<string, unknown> | string | string[];
}

/**
 * Token usage the mock reports.
 *
 * @example
 * ```ts
 * import { mockReply, type MockUsage } from "@bub/core/testing";
 * const usage: MockUsage = { promptTokens: 12, completionTokens: 3 };
 * const reply = mockReply.text("hi", { usage });
 * ```
 */
export interface MockUsage {
  /** Input tokens. */
  promptTokens: number;
  /** Output tokens. */
  completionTokens: number;
  /** Cached input tokens, when set. */
  cachedTokens?: number;
}

/**
 * An HTTP error reply.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MockLlmServer, type MockErrorReply } from "@bub/core/testing";
 * const error: MockErrorReply = { status: 429, message: "Slow down", headers: { "retry-after": "1" } };
 * await using server = await MockLlmServer.start({ script: [{ error }] });
 * const response = await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{}" });
 * assert.equal(response.status, 429);
 * await response.body?.cancel();
 * ```
 */
export interface MockErrorReply {
  /** The HTTP status, e.g. 429 or 500. */
  status: number;
  /** The error message put in the protocol's error body. */
  message?: string;
  /** The OpenAI error `code` (e.g. `context_length_exceeded`). */
  code?: string;
  /** The error `type` (e.g. `invalid_request_error`). */
  type?: string;
  /** A body sent verbatim instead of the protocol's error body (JSON-encoded unless a string). */
  body?: unknown;
  /** Extra response headers (e.g. `retry-after`). */
  headers?: Record<string, string>;
}

/**
 * One scripted reply; an empty reply answers with empty text.
 *
 * @example
 * ```ts
 * import { MockLlmServer, type MockReply } from "@bub/core/testing";
 * const reply: MockReply = { text: ["Hel", "lo"], reasoning: "Greet back.", delayMs: 5 };
 * await using server = await MockLlmServer.start({ script: [reply] });
 * ```
 */
export interface MockReply {
  /** Answer text, or its chunks. */
  text?: string | string[];
  /** Reasoning text, or its chunks (chat `reasoning_content`, Anthropic thinking). */
  reasoning?: string | string[];
  /** Tool calls, each split over several chunks. */
  toolCalls?: MockToolCall[];
  /** Usage to report; null reports none. Default `{promptTokens: 10, completionTokens: 5}`. */
  usage?: MockUsage | null;
  /** Milliseconds to wait before each SSE event after the first. */
  delayMs?: number;
  /** Close the connection after this many SSE events (a truncated stream). */
  truncateAfter?: number;
  /**
   * Stop sending after this many SSE events and keep the connection open (a stalled stream),
   * until the client goes away or the server closes. `0` stalls right after the headers.
   */
  stallAfter?: number;
  /** While stalled, send an SSE comment (`: keep-alive`) this often: bytes without events. */
  stallKeepAliveMs?: number;
  /** Answer with an HTTP error instead. */
  error?: MockErrorReply;
  /**
   * The raw finish reason (default: tool calls → `tool_calls`/`tool_use`, else `stop`/`end_turn`).
   * For the Responses API it is the `incomplete_details.reason` (e.g. `max_output_tokens`) of a
   * response that ends `incomplete`.
   */
  finishReason?: string;
}

/**
 * A request as the mock server received it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MockLlmServer, type MockRequest } from "@bub/core/testing";
 * await using server = await MockLlmServer.start({ script: [{ text: "ok" }] });
 * await fetch(`${server.url}/chat/completions`, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "m", messages: [] }),
 * }).then((r) => r.body?.cancel());
 * const [request]: MockRequest[] = server.requests;
 * assert.equal(request?.protocol, "chat");
 * ```
 */
export interface MockRequest {
  /** The HTTP method. */
  method: string;
  /** The request path (with query string). */
  path: string;
  /** Request headers, lowercase names. */
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** The body as received (what a request signature covers). */
  rawBody?: string;
  /** Which wire protocol the path selects. */
  protocol: MockProtocol;
}

/**
 * The wire protocols the mock server speaks.
 *
 * @example
 * ```ts
 * import type { MockProtocol } from "@bub/core/testing";
 * const protocol: MockProtocol = "anthropic"; // POST /v1/messages
 * // also "gemini" (`…/models/<m>:streamGenerateContent`) and "bedrock" (`…/model/<m>/converse-stream`)
 * ```
 */
export type MockProtocol = "chat" | "responses" | "anthropic" | "gemini" | "bedrock";

/**
 * Computes a reply from a request.
 *
 * @example
 * ```ts
 * import { MockLlmServer, type MockResponder } from "@bub/core/testing";
 * const echo: MockResponder = (request) => ({ text: `you sent ${JSON.stringify(request.body).length} bytes` });
 * await using server = await MockLlmServer.start({ script: echo });
 * ```
 */
export type MockResponder = (request: MockRequest) => MockReply | Promise<MockReply>;

/**
 * The context-length error message used by {@link mockReply}`.contextLengthError()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isContextLengthError } from "@bub/core/agent";
 * import { CONTEXT_LENGTH_MESSAGE } from "@bub/core/testing";
 * assert.ok(isContextLengthError(CONTEXT_LENGTH_MESSAGE));
 * ```
 */
export const CONTEXT_LENGTH_MESSAGE: string =
  "This model's maximum context length is 8192 tokens. However, your messages resulted in " +
  "9000 tokens. Please reduce the length of the messages.";

/**
 * Factories for common {@link MockReply}s.
 *
 * @example A tool round trip
 * ```ts
 * import { mockReply } from "@bub/core/testing";
 * const script = [
 *   mockReply.toolCall("bash", { cmd: "ls" }),
 *   mockReply.text("done", { chunks: 2 }),
 * ];
 * ```
 */
export const mockReply: {
  /** Text, optionally split into `chunks` pieces. */
  text(text: string, options?: Omit<MockReply, "text"> & { chunks?: number }): MockReply;
  /** One tool call. */
  toolCall(
    name: string,
    args?: MockToolCall["arguments"],
    options?: Omit<MockReply, "toolCalls"> & { id?: string },
  ): MockReply;
  /** An HTTP error with a protocol-shaped body. */
  error(
    status: number,
    message?: string,
    options?: Omit<MockErrorReply, "status" | "message">,
  ): MockReply;
  /** A 400 whose message is an OpenAI-style `context_length_exceeded` error. */
  contextLengthError(): MockReply;
  /** `reply` cut off after `events` SSE events. */
  truncated(reply: MockReply, events: number): MockReply;
  /** `reply` stalled (connection kept open, nothing sent) after `events` SSE events. */
  stalled(reply: MockReply, events: number): MockReply;
} = {
  text(text, options = {}) {
    const { chunks = 1, ...rest } = options;
    return { ...rest, text: splitText(text, chunks) };
  },
  toolCall(name, args = {}, options = {}) {
    const { id, ...rest } = options;
    return { ...rest, toolCalls: [{ name, arguments: args, ...(id ? { id } : {}) }] };
  },
  error(status, message = `Mock error ${status}`, options = {}) {
    return { error: { status, message, ...options } };
  },
  contextLengthError() {
    return {
      error: {
        status: 400,
        message: CONTEXT_LENGTH_MESSAGE,
        code: "context_length_exceeded",
        type: "invalid_request_error",
      },
    };
  },
  truncated(reply, events) {
    return { ...reply, truncateAfter: events };
  },
  stalled(reply, events) {
    return { ...reply, stallAfter: events };
  },
};

/** Splits `text` into `count` pieces of about equal length (never fewer than one). */
export function splitText(text: string, count: number): string[] {
  const n = Math.max(1, Math.min(count, text.length || 1));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(text.slice(i * size, (i + 1) * size));
  return out.filter((piece, i) => piece !== "" || i === 0);
}

/** The chunks of a text field. */
export function chunksOf(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return typeof value === "string" ? (value === "" ? [] : [value]) : value.filter((v) => v !== "");
}

/** The argument chunks of a tool call (a whole string is split in two). */
export function argumentChunks(call: MockToolCall): string[] {
  const args = call.arguments ?? {};
  if (Array.isArray(args)) return args;
  const text = typeof args === "string" ? args : JSON.stringify(args);
  return text.length > 1 ? splitText(text, 2) : [text];
}
