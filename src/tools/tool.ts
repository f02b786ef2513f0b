/**
 * The tool abstraction: {@link defineTool} builds an immutable {@link Tool} from a name, a
 * description, a parameter schema and a handler (their options are `tool_options.ts`), and the
 * names a tool has for the model.
 *
 * @module
 */
import { BubError } from "../kernel/errors.ts";
export type { ToolObserver } from "../kernel/stream_events.ts";
import {
  type CompiledParameters,
  compileParameters,
  type JsonSchema,
  validateArguments,
} from "./_schema.ts";
import { reportToolCall } from "./reporter.ts";
import type {
  ContextToolOptions,
  PlainToolOptions,
  ToolContext,
  ToolSchema,
} from "./tool_options.ts";

export type {
  ContextToolOptions,
  PlainToolOptions,
  StandardSchemaLike,
  ToolContext,
  ToolOptionsBase,
  ToolParameters,
  ToolSchema,
} from "./tool_options.ts";

export { type JsonSchema, type ToolArgumentIssue, ToolArgumentsError } from "./_schema.ts";

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
