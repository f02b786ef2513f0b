/**
 * The one list of secrets every sink redacts (logs, `bub`'s error line, spans, the web console,
 * the tape's error records, `bub mcp`): the secret values of the process environment (see
 * `isSecretEnvName`, `isSecretName` and URL passwords in `redact.ts`) plus every value registered
 * from settings ({@link registerSecretsOf}: secret-shaped keys of `config.yml` such as `api_key`,
 * `telegram.token`, MCP `headers`/`env`, URL passwords such as a PostgreSQL `tape_store`, and
 * the secrets of an environment a framework was given). Each secret is listed as written and in
 * its JSON-escaped and URL-encoded forms.
 *
 * A registered value stays registered for the life of the process (a value that once was a
 * secret is still one). Nothing is read at import.
 *
 * @module
 */
import process from "node:process";
import { isPlainObject, isRecord } from "./object.ts";
import {
  addSecret,
  addUrlPasswords,
  isSecretName,
  MIN_SECRET_LENGTH,
  redactSecrets,
  secretEnvValues,
} from "./redact.ts";

/** An environment: variable name → value. */
export type SecretEnv = Readonly<Record<string, string | undefined>>;

/** Where secrets come from: an environment and settings data (`config.yml`). */
export interface SecretSources {
  /** Environment variables (e.g. `process.env`, or the `env` a framework was given). */
  env?: SecretEnv;
  /** Settings data, e.g. the whole `config.yml` mapping. */
  config?: unknown;
}

/** A command-line flag with a secret-shaped name and its value: `--api-key=...`. */
const FLAG_WITH_VALUE = /^--?([A-Za-z][\w.-]*)=(.+)$/s;
/** A command-line flag with a secret-shaped name: `--token`, then the value. */
const FLAG = /^--?([A-Za-z][\w.-]*)$/;

function walk(value: unknown, secret: boolean, out: Set<string>, depth: number): void {
  if (depth > 32) return;
  if (typeof value === "string") {
    if (secret) addSecret(out, value);
    addUrlPasswords(out, value);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      walk(item, secret, out, depth + 1);
      if (typeof item !== "string") continue;
      const pair = FLAG_WITH_VALUE.exec(item);
      if (pair && isSecretName(pair[1]!)) addSecret(out, pair[2]!);
      const flag = FLAG.exec(item);
      const next = value[i + 1];
      if (flag && isSecretName(flag[1]!) && typeof next === "string") addSecret(out, next);
    }
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      walk(item, secret || isSecretName(key), out, depth + 1);
    }
  } else if (secret && (typeof value === "number" || typeof value === "bigint")) {
    addSecret(out, String(value));
  }
}

/**
 * The secret values of `sources`, longest first: those of `env` (as `secretEnvValues`), and in
 * `config` every string under a secret-shaped key (`api_key` as a string or a map by provider,
 * `telegram.token`, an MCP server's `headers.Authorization` or `env.GITHUB_TOKEN`, and the
 * credential of `Bearer <token>`), the value of a secret-shaped flag in a list (`--token x`,
 * `--api-key=x`), and the password of every URL (`postgres://bub:pw@host/db`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { secretsOf } from "./secrets.ts";
 * const secrets = secretsOf({
 *   config: { api_key: { openai: "sk-openai-1" }, telegram: { token: "123:abcdef" } },
 * });
 * assert.ok(JSON.stringify(secrets) === '["sk-openai-1","123:abcdef"]');
 * ```
 */
export function secretsOf(sources: SecretSources): string[] {
  const out = new Set<string>(sources.env ? secretEnvValues(sources.env) : []);
  if (sources.config !== undefined) walk(sources.config, false, out, 0);
  return [...out].sort((a, b) => b.length - a.length);
}

const registered = new Set<string>();
let version = 0;

/** Adds `values` (at least 6 characters) to the process-wide list of secrets. */
export function registerSecrets(values: Iterable<string>): void {
  for (const value of values) {
    const text = value.trim();
    if (text.length < MIN_SECRET_LENGTH || registered.has(text)) continue;
    registered.add(text);
    version++;
  }
}

/**
 * Adds the secrets of `sources` ({@link secretsOf}) to the process-wide list, e.g. those of a
 * framework's `config.yml` and environment when its settings load.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { knownSecrets, registerSecretsOf } from "./secrets.ts";
 * registerSecretsOf({ config: { api_key: "sk-config-only-42" } });
 * assert.ok(knownSecrets().includes("sk-config-only-42"));
 * ```
 */
export function registerSecretsOf(sources: SecretSources): void {
  registerSecrets(secretsOf(sources));
}

/** Options of {@link knownSecrets}. */
export interface KnownSecretsOptions {
  /** The environment whose secrets are added (default `process.env`). */
  env?: SecretEnv;
  /**
   * Reuse the list computed at most this many ms ago (for `process.env` only; reading the
   * environment costs ~0.1-0.2 ms on Node and Deno). Default 0: read the environment now.
   */
  maxAgeMs?: number;
}

let cached: { at: number; version: number; list: readonly string[] } | null = null;

/** `secrets` plus their JSON-escaped and URL-encoded forms, longest first. */
function withForms(secrets: Iterable<string>): string[] {
  const all = new Set<string>();
  for (const secret of secrets) {
    all.add(secret);
    all.add(JSON.stringify(secret).slice(1, -1));
    all.add(encodeURIComponent(secret));
  }
  return [...all].sort((a, b) => b.length - a.length);
}

/**
 * Every known secret, longest first, each also JSON-escaped and URL-encoded: the registered
 * values ({@link registerSecretsOf}) and those of the environment.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { knownSecrets } from "./secrets.ts";
 * const secrets = knownSecrets({ env: { BUB_API_KEY: 'sk-"quoted"-1' } });
 * assert.ok(secrets.includes('sk-"quoted"-1') && secrets.includes('sk-\\"quoted\\"-1'));
 * ```
 */
export function knownSecrets(options: KnownSecretsOptions = {}): readonly string[] {
  const env = options.env ?? process.env;
  const maxAge = options.maxAgeMs ?? 0;
  const shared = env === process.env;
  if (shared && maxAge > 0 && cached !== null && cached.version === version) {
    if (performance.now() - cached.at <= maxAge) return cached.list;
  }
  const list = withForms([...registered, ...secretEnvValues(env)]);
  if (shared) cached = { at: performance.now(), version, list };
  return list;
}

/**
 * `text` with every known secret ({@link knownSecrets}) and `bot<digits>:<secret>` replaced by
 * `[REDACTED]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactKnownSecrets, registerSecrets } from "./secrets.ts";
 * registerSecrets(["tok-registered-77"]);
 * assert.ok(redactKnownSecrets("401: tok-registered-77") === "401: [REDACTED]");
 * ```
 */
export function redactKnownSecrets(text: string, options: KnownSecretsOptions = {}): string {
  return redactSecrets(text, knownSecrets(options));
}

/**
 * `value` with {@link redactKnownSecrets} applied to every string in it (arrays and plain
 * objects are copied; other values are returned as they are).
 */
export function redactKnownSecretsDeep<T>(value: T, options: KnownSecretsOptions = {}): T {
  const secrets = knownSecrets(options);
  const visit = (item: unknown, depth: number): unknown => {
    if (typeof item === "string") return redactSecrets(item, secrets);
    if (depth > 32) return item;
    if (Array.isArray(item)) return item.map((entry) => visit(entry, depth + 1));
    if (isPlainObject(item)) {
      const out: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(item)) out[key] = visit(entry, depth + 1);
      return out;
    }
    return item;
  };
  return visit(value, 0) as T;
}
