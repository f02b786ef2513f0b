/**
 * Private: the definition shape of src/_internal/schema.ts's schemas and their JSON Schema, in
 * zod's `io: "input"` form (defaults and optional properties are not required; an integer's
 * `null` is an `anyOf`, as zod keeps the integer's safe-range bounds beside its type).
 *
 * @module
 */

/** What the JSON Schema of a definition needs of a nested schema. */
export interface SchemaNode {
  /** The nested schema's JSON Schema. */
  toJSONSchema(): Record<string, unknown>;
  /** True when an object property with this schema may be absent from the input. */
  readonly isOptional: boolean;
}

/** The schema kinds. */
export type Kind =
  | "string"
  | "number"
  | "int"
  | "boolean"
  | "unknown"
  | "array"
  | "record"
  | "union"
  | "object";

/** A numeric bound (or a string length bound for `min`), with an optional custom message. */
export interface Check {
  kind: "min" | "max" | "gt";
  value: number;
  message: string | undefined;
}

/** A schema definition; `N` is the nested schema type. */
export interface SchemaDef<N extends SchemaNode> {
  kind: Kind;
  item?: N;
  options?: readonly N[];
  shape?: Readonly<Record<string, N>>;
  checks: readonly Check[];
  nullable: boolean;
  optional: boolean;
  hasDefault: boolean;
  defaultValue?: unknown;
  description?: string;
  typeError?: string;
}

/** The JSON Schema of `def`. */
export function schemaJson(def: SchemaDef<SchemaNode>): Record<string, unknown> {
  let base = baseJson(def);
  if (def.nullable) {
    const keys = Object.keys(base);
    // zod keeps an integer's (safe-range) bounds beside its type, so it cannot fold "null" in.
    base = keys.length === 1 && typeof base.type === "string" && def.kind !== "int"
      ? { type: [base.type, "null"] }
      : { anyOf: [base, { type: "null" }] };
  }
  const meta: Record<string, unknown> = {};
  if (def.hasDefault) meta.default = def.defaultValue;
  if (def.description !== undefined) meta.description = def.description;
  return def.hasDefault || def.nullable ? { ...meta, ...base } : { ...base, ...meta };
}

function baseJson(def: SchemaDef<SchemaNode>): Record<string, unknown> {
  const type = def.kind === "int" ? "integer" : def.kind;
  switch (def.kind) {
    case "unknown":
      return {};
    case "array":
      return { type: "array", items: def.item!.toJSONSchema() };
    case "record":
      return {
        type: "object",
        propertyNames: { type: "string" },
        additionalProperties: def.item!.toJSONSchema(),
      };
    case "union": {
      const options = def.options!.map((option) => option.toJSONSchema());
      const simple = options.every((o) =>
        Object.keys(o).length === 1 && typeof o.type === "string"
      );
      return simple ? { type: options.map((o) => o.type) } : { anyOf: options };
    }
    case "object": {
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const [key, schema] of Object.entries(def.shape!)) {
        properties[key] = schema.toJSONSchema();
        if (!schema.isOptional) required.push(key);
      }
      return required.length > 0 ? { type, properties, required } : { type, properties };
    }
    default: {
      const out: Record<string, unknown> = { type };
      const isString = def.kind === "string";
      for (const check of def.checks) {
        if (check.kind === "gt") out.exclusiveMinimum = check.value;
        else if (check.kind === "min") out[isString ? "minLength" : "minimum"] = check.value;
        else out[isString ? "maxLength" : "maximum"] = check.value;
      }
      return out;
    }
  }
}
