/**
 * The JSON Schema of a Standard Schema, made by the schema library's own converter: Standard JSON
 * Schema's `~standard.jsonSchema.input` (zod ≥ 4.2, arktype, valibot wrapped by
 * `toStandardJsonSchema` from `@valibot/to-json-schema`), or a `toJsonSchema()` method (arktype).
 * Bub loads no schema library of its own for this. A schema none of these apply to is refused with a
 * {@link BubError} naming its library and what to pass instead.
 *
 * @module
 */
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { BubError } from "../kernel/errors.ts";

/** What to pass instead, per library without a converter on the schema itself. */
const HINTS: Readonly<Record<string, string>> = {
  zod: "zod 3 schemas have no JSON Schema converter: use zod 4.2 or later, or pass " +
    "parameters: { schema, jsonSchema } with the JSON Schema written out",
  valibot: "valibot schemas carry no JSON Schema converter: pass " +
    "parameters: toStandardJsonSchema(schema), or parameters: { schema, jsonSchema: toJsonSchema(schema) }, " +
    'both from "@valibot/to-json-schema"',
  arktype: "this arktype version has no JSON Schema converter: upgrade arktype, or pass " +
    "parameters: { schema, jsonSchema }",
};

/** zod 4 before 4.2 (and zod 3.25's `zod/v4`) carries no converter on the schema itself. */
const ZOD4_HINT = "this zod 4 version carries no JSON Schema converter on its schemas " +
  "(Standard JSON Schema came with zod 4.2): upgrade zod, or pass " +
  'parameters: { schema, jsonSchema: z.toJSONSchema(schema, { io: "input" }) }';

function refuse(toolName: string, message: string, details: Record<string, unknown>): never {
  throw new BubError("invalid_input", `Cannot define tool "${toolName}": ${message}`, details);
}

function convert(toolName: string, vendor: string, run: () => unknown): unknown {
  let json: unknown;
  try {
    json = run();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    refuse(
      toolName,
      `the ${vendor} JSON Schema converter failed (${reason}); pass parameters: { schema, jsonSchema }`,
      { vendor, reason },
    );
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    refuse(
      toolName,
      `the ${vendor} JSON Schema converter returned ${json === null ? "null" : typeof json}, ` +
        `not a JSON Schema object; pass parameters: { schema, jsonSchema }`,
      { vendor },
    );
  }
  return json;
}

/**
 * The input JSON Schema of `schema`, from its library's converter.
 *
 * @throws {BubError} (`invalid_input`, `details.vendor`) when the schema has no converter or the
 *   converter fails; the message says what to pass instead
 */
export function standardJsonSchema(toolName: string, schema: StandardSchemaV1): unknown {
  const props = schema["~standard"];
  const vendor = String(props.vendor);
  const standard = (props as { jsonSchema?: { input?: unknown } }).jsonSchema;
  if (standard && typeof standard.input === "function") {
    const input = standard.input as (options: { target: string }) => unknown;
    return convert(toolName, vendor, () => input.call(standard, { target: "draft-2020-12" }));
  }
  const method = (schema as { toJsonSchema?: unknown }).toJsonSchema;
  if (typeof method === "function") {
    return convert(toolName, vendor, () => method.call(schema));
  }
  refuse(
    toolName,
    ("_zod" in schema && vendor === "zod" ? ZOD4_HINT : HINTS[vendor]) ??
      `a Standard Schema from "${vendor}" without a JSON Schema converter (Standard JSON Schema's ` +
        "~standard.jsonSchema) needs parameters: { schema, jsonSchema }",
    { vendor },
  );
}
