/**
 * Lax coercion of tool arguments against their JSON schema, applied before validation so that
 * string-only callers (comma commands, sloppy models) can pass `"3"` or `"yes"`.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";

/** A JSON schema object (only the keywords coercion looks at are typed). */
type Schema = Record<string, unknown>;

const TRUE_WORDS: ReadonlySet<string> = new Set(["true", "1", "yes", "on", "t", "y"]);
const FALSE_WORDS: ReadonlySet<string> = new Set(["false", "0", "no", "off", "f", "n"]);
const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const MAX_DEPTH = 32;

function resolveRef(schema: Schema, root: Schema): Schema {
  let current = schema;
  for (let hops = 0; hops < MAX_DEPTH && typeof current.$ref === "string"; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith("#/")) return current;
    let target: unknown = root;
    for (const part of ref.slice(2).split("/")) {
      const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
      target = isRecord(target) ? target[key] : undefined;
    }
    if (!isRecord(target)) return current;
    current = target;
  }
  return current;
}

/** The schema alternatives: the schema itself plus its `anyOf` / `oneOf` / `allOf` members. */
function alternatives(schema: Schema, root: Schema, depth: number): Schema[] {
  const resolved = resolveRef(schema, root);
  const out: Schema[] = [resolved];
  if (depth > MAX_DEPTH) return out;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const members = resolved[key];
    if (!Array.isArray(members)) continue;
    for (const member of members) {
      if (isRecord(member)) out.push(...alternatives(member, root, depth + 1));
    }
  }
  return out;
}

function typesOf(options: readonly Schema[]): Set<string> {
  const types = new Set<string>();
  for (const option of options) {
    const type = option.type;
    if (typeof type === "string") types.add(type);
    else if (Array.isArray(type)) { for (const t of type) if (typeof t === "string") types.add(t); }
    if ("const" in option) types.add(typeofJson(option.const));
    if (Array.isArray(option.enum)) {
      for (const value of option.enum) types.add(typeofJson(value));
    }
  }
  return types;
}

function typeofJson(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function coerceScalar(value: unknown, types: ReadonlySet<string>): unknown {
  if (typeof value === "string") {
    if (types.has("string")) return value;
    const text = value.trim();
    if ((types.has("integer") || types.has("number")) && INTEGER_TEXT.test(text)) {
      return Number(text);
    }
    if (types.has("number") && NUMBER_TEXT.test(text)) return Number(text);
    if (types.has("integer") && NUMBER_TEXT.test(text) && Number.isInteger(Number(text))) {
      return Number(text);
    }
    if (types.has("boolean")) {
      const word = text.toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
    }
    return value;
  }
  if (
    typeof value === "number" && types.has("boolean") && !types.has("number") &&
    !types.has("integer")
  ) {
    if (value === 1) return true;
    if (value === 0) return false;
  }
  return value;
}

/**
 * The array or object a JSON text spells, when the schema wants one and takes no string
 * (`paths=["a","b"]` from a comma command); else undefined.
 */
function structuredFromText(value: string, types: ReadonlySet<string>): unknown {
  if (types.has("string") || !(types.has("array") || types.has("object"))) return undefined;
  const text = value.trim();
  if (!text.startsWith("[") && !text.startsWith("{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    const kind = Array.isArray(parsed) ? "array" : isRecord(parsed) ? "object" : null;
    return kind !== null && types.has(kind) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function coerceValue(value: unknown, schema: Schema, root: Schema, depth: number): unknown {
  if (depth > MAX_DEPTH) return value;
  const options = alternatives(schema, root, 0);
  const types = typesOf(options);
  if (typeof value === "string") {
    const structured = structuredFromText(value, types);
    if (structured !== undefined) value = structured;
  }
  if (Array.isArray(value)) {
    const items = options.map((option) => option.items).find(isRecord);
    return items ? value.map((item) => coerceValue(item, items, root, depth + 1)) : value;
  }
  if (isRecord(value)) {
    const withProperties = options.filter((option) => isRecord(option.properties));
    return withProperties.length > 0 ? coerceObject(value, withProperties, root, depth + 1) : value;
  }
  return types.size > 0 ? coerceScalar(value, types) : value;
}

function coerceObject(
  value: Record<string, unknown>,
  options: readonly Schema[],
  root: Schema,
  depth: number,
): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const [key, item] of Object.entries(value)) {
    const property = options
      .map((option) => (option.properties as Record<string, unknown>)[key])
      .find(isRecord);
    if (!property) continue;
    const coerced = coerceValue(item, property, root, depth);
    if (coerced !== item) {
      out ??= { ...value };
      out[key] = coerced;
    }
  }
  return out ?? value;
}

/**
 * Returns `args` with string values coerced toward the types their JSON schema declares
 * (numeric strings → numbers, `"true"`/`"false"`/`"1"`/`"0"`/`"yes"`/`"no"`/`"on"`/`"off"` →
 * booleans, `0`/`1` → booleans, JSON text of an array or object → that array or object where
 * the schema wants one and takes no string), recursing into object properties and array items and following
 * local `$ref`s. Never throws; values it cannot coerce are left for the validator to reject.
 * `args` itself is not modified.
 */
export function coerceArguments(
  args: Record<string, unknown>,
  schema: Record<string, unknown>,
): Record<string, unknown> {
  const options = alternatives(schema, schema, 0).filter((option) => isRecord(option.properties));
  return options.length > 0 ? coerceObject(args, options, schema, 0) : args;
}
