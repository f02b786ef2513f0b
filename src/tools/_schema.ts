/**
 * Tool parameter schemas: turns a zod schema, a Standard Schema (with its JSON Schema) or a plain
 * JSON Schema into the model-facing JSON Schema plus a validator, and validates arguments.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { BubError } from "../kernel/errors.ts";
import { coerceArguments } from "./_coerce.ts";
import { standardJsonSchema } from "./_json_schema.ts";

/**
 * A JSON Schema object.
 *
 * @example
 * ```ts
 * import { defineTool } from "@bub/core";
 * import type { JsonSchema } from "@bub/core/tools";
 * const parameters: JsonSchema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
 * const read = defineTool({ name: "fs.peek", parameters, handler: ({ path }) => `would read ${path}` });
 * ```
 */
export type JsonSchema = Record<string, unknown>;

/**
 * One argument validation error, in the shape Bub records (`type`, `loc`, `msg`, `input`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { type ToolArgumentIssue, ToolArgumentsError } from "@bub/core/tools";
 * import { z } from "zod";
 * const tool = defineTool({
 *   name: "sleep",
 *   parameters: z.object({ seconds: z.number() }),
 *   handler: () => "slept",
 * });
 * const error = await tool.run({}).catch((e) => e);
 * assert.ok(error instanceof ToolArgumentsError);
 * const [issue]: readonly ToolArgumentIssue[] = error.errors;
 * assert.deepEqual(issue?.loc, ["seconds"]);
 * ```
 */
export interface ToolArgumentIssue {
  /** The error type, e.g. `missing`, `string_type`, `too_small`. */
  type: string;
  /** The location of the bad value: property names and array indexes from the arguments root. */
  loc: Array<string | number>;
  /** A human-readable message. */
  msg: string;
  /** The offending value (for `missing`, the object that lacks the field). */
  input: unknown;
}

/**
 * Arguments did not match a tool's parameter schema. A {@link BubError} of kind `invalid_input`
 * with `details.errors`; the tool executor re-labels it with the name the tool was invoked by.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineTool } from "@bub/core";
 * import { ToolArgumentsError } from "@bub/core/tools";
 * import { z } from "zod";
 * const add = defineTool({ name: "math.add", parameters: z.object({ a: z.number() }), handler: ({ a }) => a });
 * const error = await add.run({ a: "x" }).catch((e) => e);
 * assert.ok(error instanceof ToolArgumentsError);
 * assert.equal(error.message, "Tool 'math.add' argument validation failed.");
 * assert.equal(error.errors[0]?.input, "x");
 * ```
 */
export class ToolArgumentsError extends BubError {
  /** The tool's runtime name. */
  readonly toolName: string;
  /** Every validation error. */
  readonly errors: readonly ToolArgumentIssue[];

  /**
   * Creates the error for `toolName` with its validation `errors`.
   *
   * @param toolName the tool's name
   * @param errors the validation errors
   */
  constructor(toolName: string, errors: readonly ToolArgumentIssue[]) {
    super("invalid_input", `Tool '${toolName}' argument validation failed.`, {
      errors: [...errors],
    });
    this.name = "ToolArgumentsError";
    this.toolName = toolName;
    this.errors = errors;
  }
}

/** Compiled parameters: the model-facing JSON Schema and an optional validator. */
export interface CompiledParameters {
  /** The JSON Schema (deep-frozen). */
  readonly jsonSchema: JsonSchema;
  /** Validates coerced arguments; null for a plain JSON Schema. */
  readonly validator: StandardSchemaV1.Props | null;
}

const SAFE_BOUNDS: ReadonlySet<unknown> = new Set([
  Number.MIN_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER,
]);

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = isRecord(value) || typeof value === "function"
    ? (value as Record<string, unknown>)["~standard"]
    : undefined;
  return isRecord(props) && typeof props.validate === "function";
}

/** Drops `$schema` and zod's safe-integer bounds, then deep-clones and freezes. */
function cleanSchema(value: unknown, top: boolean): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map((item) => cleanSchema(item, false)));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (top && key === "$schema") continue;
    if ((key === "minimum" || key === "maximum") && SAFE_BOUNDS.has(item)) continue;
    out[key] = cleanSchema(item, false);
  }
  return Object.freeze(out);
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

/**
 * Compiles a tool's `parameters` option.
 *
 * @throws {BubError} (`invalid_input`) for a Standard Schema whose library has no JSON Schema
 *   converter (zod 3, bare valibot, ...) or whose converter fails
 * @throws {TypeError} when it is neither a JSON Schema object, a Standard Schema nor a
 *   `{ schema, jsonSchema }` pair
 */
export function compileParameters(toolName: string, parameters: unknown): CompiledParameters {
  if (parameters === undefined || parameters === null) {
    return {
      jsonSchema: cleanSchema({ type: "object", properties: {} }, true) as JsonSchema,
      validator: null,
    };
  }
  if (isStandardSchema(parameters)) {
    const json = standardJsonSchema(toolName, parameters);
    return {
      jsonSchema: cleanSchema(json, true) as JsonSchema,
      validator: parameters["~standard"],
    };
  }
  if (isRecord(parameters) && "schema" in parameters && "jsonSchema" in parameters) {
    if (!isStandardSchema(parameters.schema) || !isRecord(parameters.jsonSchema)) {
      throw new TypeError(
        `Cannot define tool "${toolName}": parameters.schema must be a Standard Schema and ` +
          `parameters.jsonSchema a JSON Schema object`,
      );
    }
    return {
      jsonSchema: cleanSchema(parameters.jsonSchema, true) as JsonSchema,
      validator: parameters.schema["~standard"],
    };
  }
  if (isRecord(parameters)) {
    return { jsonSchema: cleanSchema(parameters, true) as JsonSchema, validator: null };
  }
  throw new TypeError(
    `Cannot define tool "${toolName}": parameters must be a zod schema, a Standard Schema or a ` +
      `JSON Schema object, got ${describeValue(parameters)}`,
  );
}

function locate(
  root: unknown,
  loc: readonly PropertyKey[],
): { found: boolean; value: unknown; parent: unknown } {
  let parent: unknown = undefined;
  let current: unknown = root;
  for (const key of loc) {
    parent = current;
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) {
      return { found: false, value: undefined, parent };
    }
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { found: true, value: current, parent };
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: "string",
  number: "number",
  int: "int",
  boolean: "bool",
  object: "dict",
  array: "list",
  bigint: "int",
};

/** Converts a Standard Schema issue into a {@link ToolArgumentIssue}, reading values from `args`. */
export function toIssue(issue: StandardSchemaV1.Issue, args: unknown): ToolArgumentIssue {
  const path = (issue.path ?? []).map((segment) =>
    typeof segment === "object" && segment !== null ? segment.key : segment
  );
  const loc = path.map((key) => (typeof key === "symbol" ? String(key) : key));
  const { found, value, parent } = locate(args, path);
  if (!found && path.length > 0) {
    return { type: "missing", loc, msg: "Field required", input: parent };
  }
  const extra = issue as { code?: unknown; expected?: unknown };
  const code = typeof extra.code === "string" ? extra.code : "value_error";
  const type = code === "invalid_type" && typeof extra.expected === "string"
    ? `${TYPE_NAMES[extra.expected] ?? extra.expected}_type`
    : code;
  return { type, loc, msg: issue.message, input: value };
}

/**
 * Coerces `args` (§6.3 lax mode) and validates them.
 *
 * @returns the validated (and, for schemas with transforms or defaults, converted) arguments
 * @throws {ToolArgumentsError} when they do not match
 */
export async function validateArguments(
  toolName: string,
  compiled: CompiledParameters,
  args: unknown,
): Promise<unknown> {
  if (!isRecord(args)) {
    throw new ToolArgumentsError(toolName, [
      {
        type: "dict_type",
        loc: [],
        msg: `Input should be an object, got ${describeValue(args)}`,
        input: args,
      },
    ]);
  }
  const coerced = coerceArguments(args, compiled.jsonSchema);
  if (!compiled.validator) return coerced;
  let result = compiled.validator.validate(coerced);
  if (result instanceof Promise) result = await result;
  if (result.issues) {
    throw new ToolArgumentsError(toolName, result.issues.map((issue) => toIssue(issue, coerced)));
  }
  return result.value;
}
