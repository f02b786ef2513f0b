/**
 * The AI SDK OpenAI provider's tool-schema normalisation, for the direct chat-completions client:
 * `propertyNames` (string-typed) is dropped wherever the provider looks for it, so the direct
 * client sends the same schema. Schemas the provider would rewrite otherwise (a `pattern`, which
 * it drops when it uses regex lookaround, and singleton `allOf` references) are not handled here.
 *
 * @module
 */

const RECORDS = ["properties", "patternProperties", "definitions", "$defs"];
const SINGLE = ["additionalProperties", "additionalItems", "contains", "not", "if", "then", "else"];
const LISTS = ["allOf", "anyOf", "oneOf"];

/** Thrown inside the walk for a schema the direct client leaves to the SDK. */
const UNSUPPORTED = Symbol("unsupported");

type Json = Record<string, unknown>;

function definition(value: unknown): unknown {
  if (typeof value === "boolean") return value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw UNSUPPORTED;
  return schema(value as Json);
}

function record(value: unknown): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw UNSUPPORTED;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) out[key] = definition(item);
  return out;
}

function schema(input: Json): Json {
  if ("pattern" in input && input.pattern != null) throw UNSUPPORTED;
  if ("$ref" in input || "allOf" in input) throw UNSUPPORTED;
  const names = input.propertyNames;
  if (names != null) {
    if (typeof names === "boolean") throw UNSUPPORTED;
    if ((names as Json).type != null && (names as Json).type !== "string") throw UNSUPPORTED;
  }
  const out: Json = { ...input };
  delete out.propertyNames;
  for (const key of RECORDS) if (out[key] != null) out[key] = record(out[key]);
  for (const key of SINGLE) if (out[key] != null) out[key] = definition(out[key]);
  if (out.items != null) {
    out.items = Array.isArray(out.items) ? out.items.map(definition) : definition(out.items);
  }
  for (const key of LISTS) {
    if (out[key] == null) continue;
    if (!Array.isArray(out[key])) throw UNSUPPORTED;
    out[key] = (out[key] as unknown[]).map(definition);
  }
  if (out.dependencies != null) {
    const deps: Json = {};
    for (const [key, item] of Object.entries(out.dependencies as Json)) {
      deps[key] = Array.isArray(item) ? item : definition(item);
    }
    out.dependencies = deps;
  }
  return out;
}

/**
 * `parameters` as the OpenAI provider sends it, or null when the provider would rewrite it in a
 * way this port does not cover (the SDK path then builds the request).
 */
export function openaiToolSchema(parameters: Json): Json | null {
  try {
    return schema(parameters);
  } catch (error) {
    if (error === UNSUPPORTED) return null;
    throw error;
  }
}
