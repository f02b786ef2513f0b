/**
 * The events of a model stream as a discriminated union on `kind`: narrow with
 * `switch (event.kind)` (or `event.kind === "text"`) and `event.data` gets that kind's payload.
 * The wire shape `{ kind, data }` and the payload keys (`delta`, `tool_calls`, `tool_results`,
 * …) are Bub's (kernel spec §7.5); `tool_start`, `tool_end`, `step_start` and `step_end` are
 * added by this port.
 *
 * @module
 */

/**
 * A tool call the model asked for, in the OpenAI chat shape (`arguments` is a JSON string).
 *
 * @example
 * ```ts
 * import type { ToolCallPayload } from "@bub/core/kernel";
 * const call: ToolCallPayload = {
 *   id: "call_1",
 *   type: "function",
 *   function: { name: "bash", arguments: '{"cmd":"ls"}' },
 * };
 * ```
 */
export interface ToolCallPayload {
  /** The call id (`call_<index>` when the provider gave none). */
  id: string;
  /** Always `"function"`. */
  type: "function";
  /** The model-facing tool name and its raw JSON arguments. */
  function: { name: string; arguments: string };
}

/**
 * `text` and `reasoning`: a piece of the answer or of the model's reasoning.
 *
 * @example
 * ```ts
 * import type { StreamEvent } from "@bub/core";
 * import type { DeltaPayload } from "@bub/core/kernel";
 * const data: DeltaPayload = { delta: "Hel" };
 * const event: StreamEvent = { kind: "text", data };
 * ```
 */
export interface DeltaPayload {
  /** The new text. */
  delta: string;
}

/**
 * `tool_call`: the tool calls the model asked for in this step (before any runs).
 *
 * @example
 * ```ts
 * import type { ToolCallsPayload } from "@bub/core/kernel";
 * const data: ToolCallsPayload = {
 *   tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }],
 * };
 * ```
 */
export interface ToolCallsPayload {
  /** The calls, in the model's order. */
  tool_calls: ToolCallPayload[];
}

/**
 * `tool_result`: the model-facing results of this step's tool calls, in call order.
 *
 * @example
 * ```ts
 * import type { ToolResultsPayload } from "@bub/core/kernel";
 * const data: ToolResultsPayload = { tool_results: ["README.md\nsrc"] };
 * ```
 */
export interface ToolResultsPayload {
  /** One value per call: the tool's result, or an error mapping for a failed call. */
  tool_results: unknown[];
}

/**
 * `usage`: the provider's token usage of one model call (its own keys).
 *
 * @example
 * ```ts
 * import type { StreamEvent } from "@bub/core";
 * import type { UsagePayload } from "@bub/core/kernel";
 * const data: UsagePayload = { input_tokens: 12, output_tokens: 3 };
 * const event: StreamEvent = { kind: "usage", data };
 * ```
 */
export type UsagePayload = Record<string, unknown>;

/**
 * `error`: the fields of a `BubError` (`kind` is an `ErrorKind` string).
 *
 * @example
 * ```ts
 * import type { ErrorPayload } from "@bub/core/kernel";
 * const data: ErrorPayload = { kind: "provider", message: "Rate limited", details: { status: 429 } };
 * ```
 */
export interface ErrorPayload {
  /** The error kind, e.g. `"provider"`. */
  kind: string;
  /** The message. */
  message: string;
  /** Extra details, when any. */
  details?: Record<string, unknown> | null;
}

/**
 * `final`: the step ended. `{ ok, text }` for an answer, `{ ok, tool_calls, tool_results }` for
 * a step that ran tools (the loop then continues).
 *
 * @example
 * ```ts
 * import type { FinalPayload } from "@bub/core/kernel";
 * const data: FinalPayload = { ok: true, text: "Done." };
 * ```
 */
export interface FinalPayload {
  /** False when the step produced an error answer. */
  ok: boolean;
  /** The answer text (steps without tool calls). */
  text?: string;
  /** The step's tool calls (steps that ran tools). */
  tool_calls?: ToolCallPayload[];
  /** The step's tool results (steps that ran tools). */
  tool_results?: unknown[];
  /** The calls held for a person's approval: the turn suspends after this step. */
  held?: HeldCall[];
  /**
   * Why the model stopped, on an answer it did not finish: `length` (its output limit),
   * `content-filter` (a refusal or the provider's filter), `interrupted`, `error` or `other`
   * (the agent's `ModelFinishReason`). Absent when the model ended its answer.
   */
  finish_reason?: string;
}

/**
 * A call `beforeToolCall` asked a person to approve: it did not run.
 *
 * @example
 * ```ts
 * import type { HeldCall } from "@bub/core/kernel";
 * const held: HeldCall = { index: 0, callId: "call_1", tool: "bash", arguments: { cmd: "ls" }, reason: "shell", match: null };
 * ```
 */
export interface HeldCall {
  /** The invocation's place in the step. */
  index: number;
  /** The model's call id (null outside a model step). */
  callId: string | null;
  /** The tool's own name (e.g. `fs.read`). */
  tool: string;
  /** The arguments after `beforeToolCall`. */
  arguments: Record<string, unknown>;
  /** Why the call needs approval. */
  reason: string;
  /** The pattern an "always" approval covers, or null for every call of the tool. */
  match: string | null;
}

/**
 * `tool_start`: one tool call starts running (after `beforeToolCall` let it through).
 *
 * @example
 * ```ts
 * import type { ToolStartPayload } from "@bub/core/kernel";
 * const data: ToolStartPayload = { call_id: "c1", name: "bash", arguments: { cmd: "ls" } };
 * ```
 */
export interface ToolStartPayload {
  /** The model's call id, or null outside a model step. */
  call_id: string | null;
  /** The tool's own name (e.g. `fs.read`; the model may call it `fs_read`). */
  name: string;
  /** The arguments the tool receives (after `beforeToolCall` rewrote them). */
  arguments: Record<string, unknown>;
}

/**
 * `tool_end`: one tool call finished. `ok` tells success from failure; `error` is the
 * normalized `BubError` of a failure (its `cause`, when set, is what the tool threw).
 *
 * @example
 * ```ts
 * import type { ToolEndPayload } from "@bub/core/kernel";
 * const data: ToolEndPayload = {
 *   call_id: "c1",
 *   name: "bash",
 *   arguments: { cmd: "ls" },
 *   ok: true,
 *   result: "README.md",
 *   error: null,
 *   duration_ms: 4,
 * };
 * ```
 */
export interface ToolEndPayload extends ToolStartPayload {
  /** True when the tool returned. */
  ok: boolean;
  /** The tool's return value (undefined on failure). */
  result?: unknown;
  /** The failure, or null. */
  error: Error | null;
  /** How long the tool ran, in milliseconds. */
  duration_ms: number;
}

/**
 * Observes the tools an execution runs: `start` right before a tool runs (after
 * `beforeToolCall` let it through; a denied or replaced call never runs and is not reported) and
 * `end` when it returned or threw (cancellation excepted). Called synchronously; a throwing
 * observer is ignored.
 *
 * @example
 * ```ts
 * import type { ToolObserver } from "@bub/core/kernel";
 * const started: string[] = [];
 * const observer: ToolObserver = {
 *   start: (event) => void started.push(event.name),
 *   end: (event) => console.log(`${event.name} took ${event.duration_ms} ms`),
 * };
 * observer.start({ call_id: null, name: "bash", arguments: {} });
 * ```
 */
export interface ToolObserver {
  /** A tool starts. */
  start(event: ToolStartPayload): void;
  /** A tool finished. */
  end(event: ToolEndPayload): void;
}

/**
 * `step_start`: the agent loop starts a model step (1-based).
 *
 * @example
 * ```ts
 * import type { StepStartPayload } from "@bub/core/kernel";
 * const data: StepStartPayload = { step: 1 };
 * ```
 */
export interface StepStartPayload {
  /** The step number. */
  step: number;
}

/**
 * `step_end`: a step ended; `status` is its `loop.step` tape status.
 *
 * @example
 * ```ts
 * import type { StepEndPayload } from "@bub/core/kernel";
 * const data: StepEndPayload = { step: 1, status: "continue", elapsed_ms: 850 };
 * ```
 */
export interface StepEndPayload {
  /** The step number. */
  step: number;
  /** `ok` (the turn answers), `continue` (another step follows) or `auto_handoff`. */
  status: "ok" | "continue" | "auto_handoff" | "suspended";
  /** How long the step took, in milliseconds. */
  elapsed_ms: number;
}

/**
 * Event kind → payload. An interface so an application can add its own kinds by declaration
 * merging (`interface StreamEventMap { "acme.progress": { percent: number } }`).
 *
 * @example
 * ```ts
 * import type { StreamEventMap } from "@bub/core/kernel";
 * function textOf(data: StreamEventMap["text"]): string {
 *   return data.delta;
 * }
 * textOf({ delta: "hi" });
 * ```
 */
export interface StreamEventMap {
  /** A text delta of the answer. */
  text: DeltaPayload;
  /** A reasoning delta. */
  reasoning: DeltaPayload;
  /** The tool calls of a step. */
  tool_call: ToolCallsPayload;
  /** The tool results of a step. */
  tool_result: ToolResultsPayload;
  /** Token usage of a model call. */
  usage: UsagePayload;
  /** An error reported inside the stream. */
  error: ErrorPayload;
  /** The end of a step. */
  final: FinalPayload;
  /** A tool starts running. */
  tool_start: ToolStartPayload;
  /** A tool finished. */
  tool_end: ToolEndPayload;
  /** A step starts. */
  step_start: StepStartPayload;
  /** A step ended. */
  step_end: StepEndPayload;
}

/**
 * The kinds of {@link StreamEvent}.
 *
 * @example
 * ```ts
 * import type { StreamEventKind } from "@bub/core/kernel";
 * const shown: StreamEventKind[] = ["text", "tool_start", "tool_end", "final"];
 * ```
 */
export type StreamEventKind = keyof StreamEventMap;

/**
 * The event of one kind, e.g. `StreamEventOf<"text">`.
 *
 * @example
 * ```ts
 * import type { StreamEventOf } from "@bub/core/kernel";
 * const event: StreamEventOf<"step_start"> = { kind: "step_start", data: { step: 1 } };
 * ```
 */
export interface StreamEventOf<K extends StreamEventKind> {
  /** What happened. */
  readonly kind: K;
  /** The payload of that kind. */
  readonly data: StreamEventMap[K];
}

/**
 * One event of a model stream: a union over {@link StreamEventMap}, so `event.kind` narrows
 * `event.data`. Consumers should ignore kinds they do not know.
 *
 * @example Narrowing
 * ```ts
 * import assert from "node:assert/strict";
 * import type { StreamEvent } from "@bub/core";
 * function show(event: StreamEvent): string {
 *   switch (event.kind) {
 *     case "text": return event.data.delta;
 *     case "tool_end": return `${event.data.name}: ${event.data.ok ? "ok" : "failed"}`;
 *     default: return "";
 *   }
 * }
 * assert.ok(show({ kind: "text", data: { delta: "hi" } }) === "hi");
 * ```
 */
export type StreamEvent = { [K in StreamEventKind]: StreamEventOf<K> }[StreamEventKind];

/**
 * What a producer may hand to `AsyncStreamEvents` or `streamOf`: a typed {@link StreamEvent}, or
 * any `{ kind, data }` (an event of a kind this version does not know, or one built by code
 * written before the union). Consumers still see {@link StreamEvent} and skip unknown kinds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AsyncStreamEvents } from "@bub/core";
 * import type { StreamEventInit } from "@bub/core/kernel";
 * async function* produce(): AsyncGenerator<StreamEventInit> {
 *   yield { kind: "text", data: { delta: "hi" } };
 *   yield { kind: "my_progress", data: { percent: 50 } }; // a plugin's own kind
 * }
 * const kinds: string[] = [];
 * for await (const event of new AsyncStreamEvents(produce())) kinds.push(event.kind);
 * assert.deepEqual(kinds, ["text", "my_progress"]);
 * ```
 */
export type StreamEventInit = StreamEvent | {
  /** What happened. */
  readonly kind: string;
  /** The payload. */
  readonly data: Readonly<Record<string, unknown>>;
};
