/**
 * Argument aliases of a tool's parameters: a newer name a model or skill may use for a documented
 * parameter (current Python Bub's `bash` takes `cmd` where the seed took `command`). The
 * model-facing JSON Schema names only the documented parameter; the alias is renamed to it before
 * validation, and a call giving both with different values fails with a validation issue naming
 * both.
 *
 * @module
 */
import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { Schema, SchemaIssue } from "../_internal/schema.ts";
import type { JsonSchema } from "./_schema.ts";

/** Parameters of {@link withArgumentAliases}: the `{ schema, jsonSchema }` form of a tool. */
export interface AliasedParameters<Out> {
  /** Validates after renaming the aliases. */
  readonly schema: StandardSchemaV1<unknown, Out>;
  /** The documented schema's JSON Schema (no alias in it). */
  readonly jsonSchema: JsonSchema;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `schema` accepting each `alias → name` of `aliases` as well as `name`. Giving the alias alone
 * is the same as giving `name`; giving both with equal values is accepted; with different values
 * it is an issue at the alias: `Give "command" or its alias "cmd", not both with different
 * values`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { s } from "../_internal/schema.ts";
 * import { withArgumentAliases } from "./_argument_aliases.ts";
 * const params = withArgumentAliases(s.object({ command: s.string() }), { cmd: "command" });
 * assert.deepEqual(params.schema["~standard"].validate({ cmd: "ls" }), { value: { command: "ls" } });
 * ```
 */
export function withArgumentAliases<Out>(
  schema: Schema<Out>,
  aliases: Readonly<Record<string, string>>,
): AliasedParameters<Out> {
  const inner = schema["~standard"];
  const validate = (value: unknown) => {
    if (!isPlainRecord(value)) return inner.validate(value);
    const issues: SchemaIssue[] = [];
    let renamed: Record<string, unknown> | null = null;
    for (const [alias, name] of Object.entries(aliases)) {
      if (!Object.hasOwn(value, alias)) continue;
      renamed ??= { ...value };
      const given = renamed[alias];
      delete renamed[alias];
      if (renamed[name] === undefined) renamed[name] = given;
      else if (renamed[name] !== given && given !== undefined) {
        issues.push({
          code: "conflicting_alias",
          message: `Give ${JSON.stringify(name)} or its alias ${
            JSON.stringify(alias)
          }, not both with different values`,
          path: [alias],
        });
      }
    }
    if (issues.length > 0) return { issues };
    return inner.validate(renamed ?? value);
  };
  return {
    schema: {
      "~standard": {
        version: 1,
        vendor: inner.vendor,
        validate: validate as StandardSchemaV1<unknown, Out>["~standard"]["validate"],
      },
    },
    jsonSchema: schema.toJSONSchema() as JsonSchema,
  };
}
