/**
 * Private: the building blocks of the settings specs — schema builders (strings, integers,
 * seconds, lists, checked values) and `field`, a field whose schema is built on first use.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { type ParseResult, s as z, type Schema } from "../_internal/schema.ts";
import type { FieldSpec } from "./_settings_fields.ts";

export function str(): Schema<unknown> {
  return z.string();
}
export function int(): Schema<number> {
  return z.int({ error: "must be an integer" });
}
export function num(): Schema<number> {
  return z.number({ error: "must be a number" });
}
export function providerValue(): Schema<unknown> {
  return z.union([z.string(), z.record(z.string(), z.string())]).nullable();
}
export function object(): Schema<unknown> {
  return z.record(z.string(), z.unknown());
}
export function textList(): Schema<unknown> {
  return z.string().nullable();
}
/** A positive number of seconds, or null (no limit). */
export function seconds(): Schema<unknown> {
  return num().gt(0, { error: "must be greater than 0" }).nullable();
}
export const MAP_OR_STRING = "a string or a map of provider names to strings, or null";

/** A field whose schema is built by `schema` on first use. */
export function field(
  key: string,
  type: FieldSpec["type"],
  schema: () => Schema<unknown>,
  expected: string,
  fallback: unknown,
  extra: Partial<FieldSpec> = {},
): FieldSpec {
  const fresh = (): unknown => (isRecord(fallback) ? { ...fallback } : fallback);
  let built: Schema<unknown> | undefined;
  return {
    key,
    type,
    get schema(): Schema<unknown> {
      return built ??= schema();
    },
    expected,
    fallback: fresh,
    ...extra,
  };
}

export function nonNegative(): Schema<unknown> {
  return num().min(0, { error: "must be at least 0" });
}
/** A number of seconds > 0 (never null). */
export function positiveSeconds(): Schema<unknown> {
  return num().gt(0, { error: "must be greater than 0" });
}

/** A schema over `base` whose values must also pass `check` (a message, or null when good). */
export function checked(
  base: Schema<unknown>,
  check: (value: unknown) => string | null,
): Schema<unknown> {
  const schema = Object.create(base) as Schema<unknown>;
  schema.safeParse = (value: unknown): ParseResult<unknown> => {
    const result = base.safeParse(value);
    if (!result.success) return result;
    const message = check(result.data);
    if (message === null) return result;
    return { success: false, error: { issues: [{ code: "custom", message, path: [] }] } };
  };
  return schema;
}

export function positiveIntOrNull(): Schema<unknown> {
  return int().gt(0, { error: "must be greater than 0" }).nullable();
}
/** An integer > 0 (never null). */
export function positiveInt(): Schema<unknown> {
  return int().gt(0, { error: "must be greater than 0" });
}

/** A string field (`fallback` when unset: ""). */
export function textField(key: string, fallback = ""): FieldSpec {
  return field(key, "string", str, "a string", fallback);
}
/** A URL field, null when unset (the service's own). */
export function urlField(key: string): FieldSpec {
  return field(key, "string", textList, "a URL string, or null", null);
}
/** A comma-separated list field, null when unset. */
export function listField(key: string): FieldSpec {
  return field(key, "list_text", textList, "a comma-separated string, or null", null);
}
/** An integer field of at least `min`. */
export function intAtLeastField(key: string, min: number, fallback: number): FieldSpec {
  return field(
    key,
    "int",
    () => int().min(min, { error: `must be at least ${min}` }),
    "an integer",
    fallback,
  );
}
