/**
 * The tool abstraction: {@link defineTool} builds an immutable {@link Tool} from a name, a
 * description, a parameter schema and a handler.
 *
 * @module
 */
import { BubError } from "../kernel/errors.ts";
import type { TurnState } from "../kernel/turn.ts";
import type { ToolObserver } from "../kernel/stream_events.ts";

export type { ToolObserver } from "../kernel/stream_events.ts";
import {
  type CompiledParameters,
  compileParameters,
  type JsonSchema,
  validateArguments,
} from "./_schema.ts";
import { reportToolCall } from "./reporter.ts";

export { type JsonSchema, type ToolArgumentIssue, ToolArgumentsError } from "./_schema.ts";

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

type AnyHandler = (args: unknown, context?: ToolContext) => unknown;

interface ToolParts {
  name: string;
  runtimeName: string;
  description: string;
  compiled: CompiledParameters;
  handler: AnyHandler;
  context: boolean;
  agentUse: boolean;
  idempotent: boolean;
}

let constructing: ToolParts | null = null;

/**
 * An immutable tool. Build one with {@link defineTool}; {@link Tool.withName} and
 * {@link modelTools} make renamed copies that share the handler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool, type Tool } from "@bub/core";
 * const ping: Tool = defineTool({ name: "net.ping", description: "Ping", handler: () => "pong" });
 * assert.equal(await ping.run({}), "pong");
 * assert.equal(ping.toModelTool().name, "net_ping");
 * assert.equal(ping.withName("ping").name, "ping");
 * ```
 */
export class Tool {
  /** The name (runtime name, or model-facing name for a model copy). */
  readonly name: string;
  /** The runtime (registry) name, used in logs and reports even for a renamed copy. */
  readonly runtimeName: string;
  /** Model-facing description. */
  readonly description: string;
  /** The JSON Schema of the arguments (deep-frozen). */
  readonly parameters: JsonSchema;
  /** True when the handler receives a {@link ToolContext}. */
  readonly context: boolean;
  /** True when the tool is visible to the model. */
  readonly agentUse: boolean;
  /** True when a call may run again with the same call id (see {@link ToolOptionsBase.idempotent}). */
  readonly idempotent: boolean;
  #compiled: CompiledParameters;
  #handler: AnyHandler;
  #modelCopy: Tool | null = null;

  /** Use {@link defineTool}. */
  constructor() {
    const parts = constructing;
    if (!parts) throw new TypeError("Cannot construct Tool directly: use defineTool()");
    constructing = null;
    this.name = parts.name;
    this.runtimeName = parts.runtimeName;
    this.description = parts.description;
    this.parameters = parts.compiled.jsonSchema;
    this.context = parts.context;
    this.agentUse = parts.agentUse;
    this.idempotent = parts.idempotent;
    this.#compiled = parts.compiled;
    this.#handler = parts.handler;
    Object.freeze(this);
  }

  /**
   * Validates `args` (after lax coercion) and calls the handler, reporting the call (§6.5).
   *
   * @throws {ToolArgumentsError} when the arguments do not match the schema
   * @throws {BubError} (`invalid_input`) for a context tool called without a context
   * @throws whatever the handler throws
   */
  run(args: Record<string, unknown>, context?: ToolContext | null): Promise<unknown> {
    if (this.context && !context) {
      return Promise.reject(
        new BubError(
          "invalid_input",
          `Tool '${this.name}' requires context but none was provided.`,
        ),
      );
    }
    return reportToolCall(this.runtimeName, args, async () => {
      const parsed = await validateArguments(this.name, this.#compiled, args);
      return this.context ? await this.#handler(parsed, context!) : await this.#handler(parsed);
    });
  }

  /** `{ type: "function", function: { name, description, parameters } }`. */
  toSchema(): ToolSchema {
    return {
      type: "function",
      function: { name: this.name, description: this.description, parameters: this.parameters },
    };
  }

  /** A copy named `name` sharing everything else (the runtime name stays). */
  withName(name: string): Tool {
    checkName(name);
    return makeTool({
      name,
      runtimeName: this.runtimeName,
      description: this.description,
      compiled: this.#compiled,
      handler: this.#handler,
      context: this.context,
      agentUse: this.agentUse,
      idempotent: this.idempotent,
    });
  }

  /** The copy with the model-facing name (cached; see {@link modelToolName}). */
  toModelTool(): Tool {
    if (this.#modelCopy) return this.#modelCopy;
    // Private fields stay writable on a frozen object.
    return this.#modelCopy = this.withName(modelToolName(this.name));
  }
}

function makeTool(parts: ToolParts): Tool {
  constructing = parts;
  try {
    return new Tool();
  } finally {
    constructing = null;
  }
}

function checkName(name: unknown): asserts name is string {
  if (typeof name !== "string" || name.trim() === "") {
    throw new TypeError(
      `Cannot define tool: name must be a non-empty string, got ${JSON.stringify(name)}`,
    );
  }
}

/**
 * snake_case of a function name: `_` before each uppercase letter, lowercased, leading `_` stripped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { snakeCaseName } from "@bub/core/tools";
 * assert.equal(snakeCaseName("readFile"), "read_file");
 * ```
 */
export function snakeCaseName(name: string): string {
  return name.replace(/[A-Z]/g, (char) => `_${char.toLowerCase()}`).replace(/^_+/, "");
}

// Dotted names already mapped (the registry's tools, looked up on every tool call): the same
// string again instead of a new one per call. Bounded, as any string may be passed.
const dottedNames = new Map<string, string>();
const MAX_DOTTED_NAMES = 1024;

/**
 * The model-facing name: every `.` replaced by `_` (`fs.read` → `fs_read`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelToolName } from "@bub/core/tools";
 * assert.equal(modelToolName("fs.read"), "fs_read");
 * assert.equal(modelToolName("bash"), "bash");
 * ```
 */
export function modelToolName(name: string): string {
  if (!name.includes(".")) return name;
  let mapped = dottedNames.get(name);
  if (mapped === undefined) {
    mapped = name.replaceAll(".", "_");
    if (dottedNames.size < MAX_DOTTED_NAMES) dottedNames.set(name, mapped);
  }
  return mapped;
}

/**
 * What the model is told about a tool call that has no name: the agent's failing stand-in
 * and the builtin unknown-tool guidance give the same text.
 */
export const NAMELESS_CALL_MESSAGE =
  "Tool call has no name; call one of the offered tools by its name.";

/**
 * The agent-usable tools as copies with model-facing names; the originals are untouched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { modelTools } from "@bub/core/tools";
 * const tools = [defineTool({ name: "fs.read", handler: () => "" })];
 * assert.deepEqual(modelTools(tools).map((tool) => tool.name), ["fs_read"]);
 * ```
 */
export function modelTools(tools: Iterable<Tool>): Tool[] {
  const out: Tool[] = [];
  for (const tool of tools) if (tool.agentUse) out.push(tool.toModelTool());
  return out;
}

/**
 * Defines a tool.
 *
 * @throws {TypeError} for a missing handler, an empty name, or parameters of the wrong shape
 * @throws {BubError} (`invalid_input`) for a Standard Schema without a JSON Schema converter
 *   (the message names the library and what to pass instead)
 *
 * @example A tool with zod parameters
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { z } from "zod";
 * const add = defineTool({
 *   name: "math.add",
 *   description: "Add two numbers",
 *   parameters: z.object({ a: z.number(), b: z.number().default(0) }),
 *   handler: ({ a, b }) => a + b,
 * });
 * assert.ok(await add.run({ a: "2", b: 3 }) === 5);
 * ```
 */
export function defineTool<A = Record<string, unknown>>(options: ContextToolOptions<A>): Tool;
/** Defines a tool whose handler receives only its validated arguments. */
export function defineTool<A = Record<string, unknown>>(options: PlainToolOptions<A>): Tool;
export function defineTool<A>(options: PlainToolOptions<A> | ContextToolOptions<A>): Tool {
  if (typeof options !== "object" || options === null || typeof options.handler !== "function") {
    throw new TypeError("Cannot define tool: options need a handler function");
  }
  const name = options.name ?? snakeCaseName(options.handler.name);
  checkName(name);
  const description = options.description ?? "";
  if (typeof description !== "string") {
    throw new TypeError(
      `Cannot define tool "${name}": description must be a string, got ${typeof description}`,
    );
  }
  return makeTool({
    name,
    runtimeName: name,
    description,
    compiled: compileParameters(name, options.parameters),
    handler: options.handler as AnyHandler,
    context: options.context === true,
    agentUse: options.agentUse ?? true,
    idempotent: options.idempotent === true,
  });
}
