/**
 * Private machinery of the settings loaders: field specs, source lookup (env, `.env`, YAML),
 * coercion of text values and schema validation with messages that name the key, value and source.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import type { Schema } from "../_internal/schema.ts";
import { BubError } from "../kernel/errors.ts";

/**
 * An environment-like map.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type EnvMap, loadAgentSettings } from "@bub/core/builtin";
 * const env: EnvMap = { BUB_MODEL: "openai:gpt-4o", BUB_MAX_STEPS: "20" };
 * assert.equal(loadAgentSettings({ env }).max_steps, 20);
 * ```
 */
export type EnvMap = Readonly<Record<string, string | undefined>>;

/** How a field's text values (env, `.env`, YAML strings) are coerced before validation. */
export type FieldType = "string" | "int" | "float" | "bool" | "json" | "list_text";

/** One setting. */
export interface FieldSpec {
  /** YAML key inside the section (also the env name after the prefix, uppercased). */
  key: string;
  /** Coercion applied to incoming values. */
  type: FieldType;
  /** Validates the coerced value. */
  schema: Schema<unknown>;
  /** Noun phrase used when the value has the wrong type, e.g. "an integer". */
  expected: string;
  /** The default value (a fresh one per call). */
  fallback: () => unknown;
  /** `null` becomes `{}`. */
  nullAsEmpty?: boolean;
  /** Maps from several sources merge key by key (api_key/api_base). */
  mergeMaps?: boolean;
}

/** A settings class: section name ("" = YAML root), env prefix and fields. */
export interface SectionSpec {
  /** Config section; "" is the YAML root. */
  section: string;
  /** Env prefix, e.g. `BUB_` or `BUB_TELEGRAM_`. */
  prefix: string;
  /** The fields. */
  fields: readonly FieldSpec[];
}

/** A candidate value, where it came from, and whether it arrived as text (env, `.env`). */
export interface Sourced {
  value: unknown;
  source: string;
  fromText: boolean;
}

const TRUE = new Set(["1", "true", "t", "yes", "y", "on"]);
const FALSE = new Set(["0", "false", "f", "no", "n", "off"]);

function lookupEnv(env: EnvMap, name: string): string | undefined {
  if (env[name] !== undefined) return env[name];
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && key.toLowerCase() === lower) return value;
  }
  return undefined;
}

function coerce(field: FieldSpec, value: unknown, fromText: boolean): unknown {
  if (fromText && value === "null") return field.nullAsEmpty ? {} : null;
  if (value === null && field.nullAsEmpty) return {};
  if (typeof value === "string") {
    const text = value.trim();
    switch (field.type) {
      case "int":
        return /^[+-]?\d+$/.test(text) ? Number(text) : value;
      case "float":
        return text !== "" && Number.isFinite(Number(text)) ? Number(text) : value;
      case "bool":
        if (TRUE.has(text.toLowerCase())) return true;
        if (FALSE.has(text.toLowerCase())) return false;
        return value;
      case "json":
        if (!fromText) return value;
        try {
          const parsed = JSON.parse(value);
          return parsed === null && field.nullAsEmpty ? {} : parsed;
        } catch {
          return value;
        }
      default:
        return value;
    }
  }
  if (field.type === "bool" && (value === 0 || value === 1)) return value === 1;
  if (field.type === "list_text") {
    if (typeof value === "number") return String(value);
    if (
      Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number")
    ) {
      return value.join(",");
    }
  }
  return value;
}

function mergeValues(values: readonly Sourced[]): Sourced {
  let out = values[0]!;
  for (const next of values.slice(1)) {
    out = isRecord(out.value) && isRecord(next.value)
      ? { ...next, value: { ...out.value, ...next.value } }
      : next;
  }
  return out;
}

function display(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The inputs of one section's load. */
export interface SectionInput {
  /** The process environment. */
  env: EnvMap;
  /** Values read from a `.env` file (below `env`). */
  dotenv: EnvMap;
  /** This section's YAML data. */
  data: Record<string, unknown>;
  /** Extra lowest-priority values by key (provider-scoped api_key/api_base maps). */
  extra?: Readonly<Record<string, Sourced | undefined>>;
}

/**
 * Resolves and validates every field of `spec`; throws one `config` BubError listing every bad
 * value as `<key> <problem>, got <value> (from <source>)`.
 */
export function loadSection(spec: SectionSpec, input: SectionInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  const details: Record<string, unknown>[] = [];
  const label = (key: string): string => (spec.section ? `${spec.section}.${key}` : key);
  for (const field of spec.fields) {
    const envName = `${spec.prefix}${field.key.toUpperCase()}`;
    const candidates: Sourced[] = [];
    const extra = input.extra?.[field.key];
    if (extra) candidates.push(extra);
    if (Object.hasOwn(input.data, field.key)) {
      candidates.push({
        value: input.data[field.key],
        source: `config key ${label(field.key)}`,
        fromText: false,
      });
    }
    const fromDotenv = lookupEnv(input.dotenv, envName);
    if (fromDotenv !== undefined) {
      candidates.push({ value: fromDotenv, source: `.env ${envName}`, fromText: true });
    }
    const fromEnv = lookupEnv(input.env, envName);
    if (fromEnv !== undefined) candidates.push({ value: fromEnv, source: envName, fromText: true });
    if (candidates.length === 0) {
      out[field.key] = field.fallback();
      continue;
    }
    const coerced = candidates.map((c) => ({ ...c, value: coerce(field, c.value, c.fromText) }));
    const chosen = field.mergeMaps ? mergeValues(coerced) : coerced[coerced.length - 1]!;
    const result = field.schema.safeParse(chosen.value);
    if (result.success) {
      out[field.key] = result.data;
      continue;
    }
    const issue = result.error.issues[0];
    const problem =
      !issue || ["invalid_type", "invalid_union", "invalid_value"].includes(issue.code)
        ? `must be ${field.expected}`
        : issue.message;
    problems.push(
      `${label(field.key)} ${problem}, got ${display(chosen.value)} (from ${chosen.source})`,
    );
    details.push({ key: label(field.key), value: chosen.value, source: chosen.source, problem });
  }
  if (problems.length > 0) {
    throw new BubError("config", problems.join("; "), { errors: details });
  }
  return out;
}
