/**
 * What a tool is made of before {@link defineTool} builds it: the options (name, description,
 * parameters as a Standard Schema or a JSON Schema, handler, `context`, `idempotent`), the
 * context a context tool's handler receives, and the model-facing schema.
 *
 * @module
 */
import type { TurnState } from "../kernel/turn.ts";
import type { ToolObserver } from "../kernel/stream_events.ts";
import type { JsonSchema } from "./_schema.ts";

/**
 * What a context tool's handler receives besides its arguments. Never part of the schema.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import type { ToolContext } from "@bub/core/tools";
 * const whoami = defineTool({
 *   name: "whoami",
 *   context: true,
 *   handler: (_args, context: ToolContext) => String(context.state.session_id),
 * });
 * const context: ToolContext = { tape: null, runId: "r1", state: { session_id: "cli:local" } };
 * assert.equal(await whoami.run({}, context), "cli:local");
 * ```
 */
export interface ToolContext {
  /** The tape of the current turn (a `Tape`). */
  readonly tape: unknown;
  /** The run id of the current step, or null outside the agent loop. */
  readonly runId: string | null;
  /** The mutable turn state. */
  readonly state: TurnState;
  /** Aborted when the invocation is cancelled. */
  readonly signal?: AbortSignal;
  /**
   * Told about tools this tool runs itself (e.g. a subagent's tool calls), so a streamed turn
   * shows them too; set by the executor when the turn streams.
   */
  readonly observer?: ToolObserver;
  /**
   * The model's id of this call (set by the executor when the model made the call): the same
   * when a resumed turn runs the call again after a crash, so a tool can use it as its
   * idempotency key (the shell tools put it in `BUB_TOOL_CALL_ID`).
   */
  readonly callId?: string | null;
}

/**
 * The part of a Standard Schema (`@standard-schema/spec` v1, implemented by zod, valibot, arktype
 * and others) that tools rely on; `Output` is the validated arguments type.
 *
 * @example
 * ```ts
 * import type { StandardSchemaLike } from "@bub/core/tools";
 * import { z } from "zod";
 * const schema: StandardSchemaLike<{ city: string }> = z.object({ city: z.string() });
 * ```
 */
export interface StandardSchemaLike<Output = unknown> {
  /** The Standard Schema properties. */
  readonly "~standard": {
    /** Always 1. */
    readonly version: 1;
    /** The library name. */
    readonly vendor: string;
    /** Validates a value; returns `{ value }` or `{ issues }`, possibly as a promise. */
    readonly validate: (value: unknown) => unknown;
    /** Type-only: the input and output types. */
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
  };
}

/**
 * A tool's parameters, validated through `~standard.validate` when a Standard Schema is given:
 *
 * - a Standard Schema whose library converts it to JSON Schema: zod 4 (`z.toJSONSchema`),
 *   arktype, any schema implementing Standard JSON Schema (`~standard.jsonSchema`), valibot
 *   through `toStandardJsonSchema(schema)` from `@valibot/to-json-schema`;
 * - any other Standard Schema (zod 3, ...) paired with its JSON Schema: `{ schema, jsonSchema }`;
 * - a plain JSON Schema object (then arguments are only checked for being an object).
 *
 * String values are coerced toward the declared JSON types before validation (`"3"` → `3`,
 * `"yes"` → `true`).
 *
 * @example
 * ```ts
 * import { defineTool } from "@bub/core";
 * import type { ToolParameters } from "@bub/core/tools";
 * const parameters: ToolParameters<{ city: string }> = {
 *   type: "object",
 *   properties: { city: { type: "string" } },
 *   required: ["city"],
 * };
 * const weather = defineTool({ name: "weather", parameters, handler: ({ city }) => `Sunny in ${city}` });
 * ```
 */
export type ToolParameters<A> =
  | StandardSchemaLike<A>
  | { readonly schema: StandardSchemaLike<A>; readonly jsonSchema: JsonSchema }
  | JsonSchema;

/**
 * Options shared by every {@link defineTool} form.
 *
 * @example
 * ```ts
 * import type { ToolOptionsBase } from "@bub/core/tools";
 * const base: ToolOptionsBase<{ q: string }> = { name: "search", description: "Search the docs", agentUse: true };
 * ```
 */
export interface ToolOptionsBase<A> {
  /** Runtime name; may contain dots. Default: snake_case of the handler's function name. */
  name?: string;
  /** Model-facing description. Default `""`. */
  description?: string;
  /** The parameter schema. Default: an object without properties. */
  parameters?: ToolParameters<A>;
  /** Visible to the model. `false` makes an operator-only tool. Default `true`. */
  agentUse?: boolean;
  /**
   * Running it twice with the same call id ({@link ToolContext.callId}) has the effect of running
   * it once: a call a crash interrupted runs again when its turn resumes (else the model is told
   * it was interrupted). Default `false`.
   */
  idempotent?: boolean;
}

/**
 * {@link defineTool} options of a tool without context.
 *
 * @example
 * ```ts
 * import { defineTool } from "@bub/core";
 * import type { PlainToolOptions } from "@bub/core/tools";
 * const options: PlainToolOptions<{ text: string }> = {
 *   name: "shout",
 *   handler: ({ text }) => text.toUpperCase(),
 * };
 * const shout = defineTool(options);
 * ```
 */
export interface PlainToolOptions<A> extends ToolOptionsBase<A> {
  /** Not a context tool. */
  context?: false;
  /** Receives the validated arguments; may be async. */
  handler: (args: A) => unknown;
}

/**
 * {@link defineTool} options of a context tool.
 *
 * @example
 * ```ts
 * import { defineTool } from "@bub/core";
 * import type { ContextToolOptions } from "@bub/core/tools";
 * const options: ContextToolOptions<Record<string, unknown>> = {
 *   name: "run_id",
 *   context: true,
 *   handler: (_args, context) => context.runId,
 * };
 * const runId = defineTool(options);
 * ```
 */
export interface ContextToolOptions<A> extends ToolOptionsBase<A> {
  /** The handler receives a {@link ToolContext}. */
  context: true;
  /** Receives the validated arguments and the tool context; may be async. */
  handler: (args: A, context: ToolContext) => unknown;
}

/**
 * The OpenAI function-tool schema of a {@link Tool}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import type { ToolSchema } from "@bub/core/tools";
 * const tool = defineTool({ name: "ping", description: "Ping", handler: () => "pong" });
 * const schema: ToolSchema = tool.toSchema();
 * assert.equal(schema.function.name, "ping");
 * ```
 */
export interface ToolSchema {
  /** Always `"function"`. */
  type: "function";
  /** The function. */
  function: { name: string; description: string; parameters: JsonSchema };
}
