/**
 * A small schema builder for Bub's own tool parameters and settings: the few zod 4 builders they
 * use (`z.object`, `z.string`, `z.int`, ... with `.nullable()`, `.optional()`, `.default()`,
 * `.describe()`, `.min()`, `.max()`, `.gt()`), the same validation results and issue shapes, the
 * same JSON Schema (zod's `io: "input"` form), and the Standard Schema interface (with Standard
 * JSON Schema). Importing Bub therefore loads no schema library; users' tools may still bring zod,
 * valibot or arktype.
 *
 * @module
 */
import { isRecord } from "./object.ts";
import { type Check, type Kind, type SchemaDef, schemaJson } from "./schema_json.ts";

type Def = SchemaDef<Schema<unknown>>;

/** One validation issue, shaped as zod reports it. */
export interface SchemaIssue {
  /** `invalid_type`, `invalid_union`, `too_small` or `too_big`. */
  code: string;
  /** A human-readable message. */
  message: string;
  /** Where the bad value is, from the validated root. */
  path: PropertyKey[];
  /** For `invalid_type`: the expected type name. */
  expected?: string;
}

/** The result of {@link Schema.safeParse}. */
export type ParseResult<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: SchemaIssue[] } };

/** Optional custom message of a builder or check (`{ error: "must be ..." }`). */
export interface SchemaParams {
  /** Replaces the default message of the issue. */
  error?: string;
}

/** The validated value type of a schema. */
export type Infer<S> = S extends { readonly "~standard": { types?: { output: infer O } } } ? O
  : never;

function received(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/** An immutable schema; every modifier returns a new one. */
export class Schema<Out> {
  readonly #def: Def;

  /** Use the builders in {@link s}. */
  constructor(def: Def) {
    this.#def = def;
  }

  #with(patch: Partial<Def>): Schema<never> {
    return new Schema({ ...this.#def, ...patch });
  }

  #check(kind: Check["kind"], value: number, params?: SchemaParams): Schema<Out> {
    return this.#with({ checks: [...this.#def.checks, { kind, value, message: params?.error }] });
  }

  /** Attaches a description (the JSON Schema `description`). */
  describe(description: string): Schema<Out> {
    return this.#with({ description });
  }

  /** Also accepts `null`. */
  nullable(): Schema<Out | null> {
    return this.#with({ nullable: true });
  }

  /** Also accepts `undefined` (an absent property). */
  optional(): Schema<Out | undefined> {
    return this.#with({ optional: true });
  }

  /** Uses `value` for `undefined`. */
  default(value: Exclude<Out, undefined>): Schema<Exclude<Out, undefined>> {
    return this.#with({ hasDefault: true, defaultValue: value });
  }

  /** A number at least `value`, or a string of at least `value` characters. */
  min(value: number, params?: SchemaParams): Schema<Out> {
    return this.#check("min", value, params);
  }

  /** A number at most `value`. */
  max(value: number, params?: SchemaParams): Schema<Out> {
    return this.#check("max", value, params);
  }

  /** A number greater than `value`. */
  gt(value: number, params?: SchemaParams): Schema<Out> {
    return this.#check("gt", value, params);
  }

  /** Validates `value`; object schemas drop unknown properties. */
  safeParse(value: unknown): ParseResult<Out> {
    const issues: SchemaIssue[] = [];
    const data = this.run(value, [], issues);
    return issues.length === 0
      ? { success: true, data: data as Out }
      : { success: false, error: { issues } };
  }

  /** The Standard Schema v1 properties (with Standard JSON Schema's `jsonSchema`). */
  get "~standard"(): {
    version: 1;
    vendor: string;
    validate: (value: unknown) => { value: Out } | { issues: SchemaIssue[] };
    types?: { input: unknown; output: Out };
    jsonSchema: { input: () => Record<string, unknown>; output: () => Record<string, unknown> };
  } {
    return {
      version: 1,
      vendor: "bub",
      validate: (value) => {
        const result = this.safeParse(value);
        return result.success ? { value: result.data } : { issues: result.error.issues };
      },
      jsonSchema: { input: () => this.toJSONSchema(), output: () => this.toJSONSchema() },
    };
  }

  /** Validates into `issues`; returns the (defaulted, stripped) value. */
  run(value: unknown, path: PropertyKey[], issues: SchemaIssue[]): unknown {
    const def = this.#def;
    if (value === undefined && def.hasDefault) {
      const fallback = def.defaultValue;
      return Array.isArray(fallback)
        ? [...fallback]
        : isRecord(fallback)
        ? { ...fallback }
        : fallback;
    }
    if (value === undefined && def.optional) return undefined;
    if (value === null && def.nullable) return null;
    const fail = (expected: string): undefined => {
      issues.push({
        expected,
        code: "invalid_type",
        path,
        message: def.typeError ??
          `Invalid input: expected ${expected}, received ${received(value)}`,
      });
      return undefined;
    };
    switch (def.kind) {
      case "unknown":
        return value;
      case "string":
        if (typeof value !== "string") return fail("string");
        break;
      case "boolean":
        return typeof value === "boolean" ? value : fail("boolean");
      case "number":
      case "int":
        if (typeof value !== "number" || !Number.isFinite(value)) return fail("number");
        if (def.kind === "int" && !Number.isSafeInteger(value)) return fail("int");
        break;
      case "array":
        if (!Array.isArray(value)) return fail("array");
        return value.map((item, index) => def.item!.run(item, [...path, index], issues));
      case "record": {
        if (!isRecord(value)) return fail("record");
        const out: Record<string, unknown> = {};
        for (const [key, item] of Object.entries(value)) {
          out[key] = def.item!.run(item, [...path, key], issues);
        }
        return out;
      }
      case "object": {
        if (!isRecord(value)) return fail("object");
        const out: Record<string, unknown> = {};
        for (const [key, schema] of Object.entries(def.shape!)) {
          const item = schema.run(value[key], [...path, key], issues);
          if (item !== undefined || Object.hasOwn(value, key)) out[key] = item;
        }
        return out;
      }
      case "union": {
        for (const option of def.options!) {
          const attempt: SchemaIssue[] = [];
          const result = option.run(value, path, attempt);
          if (attempt.length === 0) return result;
        }
        issues.push({ code: "invalid_union", path, message: def.typeError ?? "Invalid input" });
        return undefined;
      }
    }
    for (const check of def.checks) this.#runCheck(check, value as string | number, path, issues);
    return value;
  }

  #runCheck(
    check: Check,
    value: string | number,
    path: PropertyKey[],
    issues: SchemaIssue[],
  ): void {
    const isString = typeof value === "string";
    const size = isString ? value.length : value;
    const bad = check.kind === "gt"
      ? !(size > check.value)
      : check.kind === "min"
      ? !(size >= check.value)
      : !(size <= check.value);
    if (!bad) return;
    const code = check.kind === "max" ? "too_big" : "too_small";
    const relation = check.kind === "gt" ? ">" : check.kind === "min" ? ">=" : "<=";
    const what = isString
      ? `string to have ${relation}${check.value} characters`
      : `number to be ${relation}${check.value}`;
    const label = code === "too_big" ? "Too big" : "Too small";
    issues.push({ code, path, message: check.message ?? `${label}: expected ${what}` });
  }

  /** The JSON Schema of the accepted input (as zod's `toJSONSchema(schema, { io: "input" })`). */
  toJSONSchema(): Record<string, unknown> {
    return schemaJson(this.#def);
  }

  /** True when an object property with this schema may be absent from the input. */
  get isOptional(): boolean {
    return this.#def.optional || this.#def.hasDefault;
  }
}

function make<T>(kind: Kind, patch: Partial<Def> = {}, params?: SchemaParams): Schema<T> {
  return new Schema<T>({
    kind,
    checks: [],
    nullable: false,
    optional: false,
    hasDefault: false,
    typeError: params?.error,
    ...patch,
  });
}

/** The builders, named as zod's (`s.object({ path: s.string() })`). */
export const s: {
  string(params?: SchemaParams): Schema<string>;
  number(params?: SchemaParams): Schema<number>;
  int(params?: SchemaParams): Schema<number>;
  boolean(params?: SchemaParams): Schema<boolean>;
  unknown(): Schema<unknown>;
  array<T>(item: Schema<T>): Schema<T[]>;
  record<V>(key: Schema<string>, value: Schema<V>): Schema<Record<string, V>>;
  union<const T extends readonly Schema<unknown>[]>(options: T): Schema<Infer<T[number]>>;
  object<S extends Record<string, Schema<unknown>>>(
    shape: S,
  ): Schema<{ [K in keyof S]: Infer<S[K]> }>;
} = {
  string: (params) => make("string", {}, params),
  number: (params) => make("number", {}, params),
  int: (params) => make("int", {}, params),
  boolean: (params) => make("boolean", {}, params),
  unknown: () => make("unknown"),
  array: (item) => make("array", { item: item as Schema<unknown> }),
  record: (_key, value) => make("record", { item: value as Schema<unknown> }),
  union: (options) => make("union", { options }),
  object: (shape) => make("object", { shape }),
};
