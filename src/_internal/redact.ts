/**
 * Redaction of secrets from text bound for logs, errors, spans and tape records: Telegram bot
 * tokens in URLs (`bot<digits>:<secret>`) and listed secret values; which names hold secrets
 * (environment variables and settings keys); the secret values of an environment.
 *
 * The process-wide list of known secrets (the environment's and the settings') is in
 * `secrets.ts`.
 *
 * @module
 */

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** A Bot API path segment carrying a token: `bot123456:AAH...` (as in `/file/bot<TOKEN>/...`). */
const BOT_TOKEN = /\bbot\d+:[A-Za-z0-9_-]+/g;

/** Shorter values are not redacted (they would mangle ordinary text). */
export const MIN_SECRET_LENGTH = 6;

/** Segments of a name that mark a secret wherever they appear in the segment. */
const SECRET_PARTS = ["secret", "password", "passwd", "passphrase", "credential"];
/** Whole segments that mark a secret. */
const SECRET_SEGMENTS = new Set(["authorization", "cookie", "pat"]);

/** The lowercase segments of a name: split at `_`, `-`, `.`, spaces and camelCase humps. */
function segments(name: string): string[] {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase().split(/[^a-z0-9]+/);
}

/**
 * True for a secret-shaped name (a settings key, a header, a variable): a segment ending in
 * `key` or `token` (`api_key`, `X-Api-Key`, `accessToken`; not `max_tokens`), containing
 * `secret`, `password`, `passwd`, `passphrase` or `credential`, or one of `authorization`,
 * `cookie`, `pat`. Case and separators (`_`, `-`, `.`, camelCase) do not matter.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSecretName } from "./redact.ts";
 * assert.ok(isSecretName("api_key") && isSecretName("Authorization"));
 * assert.ok(isSecretName("GITHUB_TOKEN") && isSecretName("dbPassword"));
 * assert.ok(!isSecretName("max_tokens") && !isSecretName("model"));
 * ```
 */
export function isSecretName(name: string): boolean {
  for (const segment of segments(name)) {
    if (segment.endsWith("key") || segment.endsWith("token")) return true;
    if (SECRET_SEGMENTS.has(segment)) return true;
    if (SECRET_PARTS.some((part) => segment.includes(part))) return true;
  }
  return false;
}

/** Provider credentials Bub reads itself or through its provider packages. */
const PROVIDER_SECRET = /(?:^|_)API_?KEY$|^AWS_SECRET_ACCESS_KEY$|^AWS_SESSION_TOKEN$/;

/**
 * True for the name of an environment variable that holds one of Bub's secrets, which tool
 * processes never see (unless passed through) and every sink redacts: a `BUB_` variable with a
 * secret-shaped name ({@link isSecretName}: `BUB_API_KEY`, `BUB_TELEGRAM_TOKEN`,
 * `BUB_DB_PASSWORD`; not `BUB_MAX_TOKENS`), and the provider keys Bub or its provider packages
 * read (`*_API_KEY` such as `OPENAI_API_KEY` and `ANTHROPIC_API_KEY`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`). Case-insensitive.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSecretEnvName } from "./redact.ts";
 * assert.ok(isSecretEnvName("BUB_TELEGRAM_TOKEN"));
 * assert.ok(isSecretEnvName("bub_openai_api_key"));
 * assert.ok(isSecretEnvName("OPENAI_API_KEY"));
 * assert.ok(!isSecretEnvName("BUB_MODEL") && !isSecretEnvName("BUB_MAX_TOKENS"));
 * ```
 */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  if (upper.startsWith("BUB_")) return isSecretName(upper.slice(4));
  return PROVIDER_SECRET.test(upper);
}

/** `user:password@` of a URL: the password (`postgres://bub:pw@host/db`). */
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:([^\s/@]+)@/gi;
/** A credential after an HTTP auth scheme (`Bearer <token>`). */
const AUTH_SCHEME = /^(?:bearer|basic|token|bot|digest)\s+(\S+)$/i;

/**
 * Adds `value` (trimmed) to `out` when it is long enough, and the credential of a
 * `Bearer <token>` value too.
 */
export function addSecret(out: Set<string>, value: string): void {
  const text = value.trim();
  if (text.length < MIN_SECRET_LENGTH) return;
  out.add(text);
  const credential = AUTH_SCHEME.exec(text)?.[1];
  if (credential !== undefined && credential.length >= MIN_SECRET_LENGTH) out.add(credential);
}

/** Adds the passwords of the URLs in `text` (as written and percent-decoded) to `out`. */
export function addUrlPasswords(out: Set<string>, text: string): void {
  if (!text.includes("://")) return;
  for (const match of text.matchAll(URL_PASSWORD)) {
    const password = match[1]!;
    addSecret(out, password);
    try {
      addSecret(out, decodeURIComponent(password));
    } catch {
      // not percent-encoded
    }
  }
}

/**
 * The secret values of `env`, longest first: the values (at least 6 characters) of variables
 * named by {@link isSecretEnvName} or {@link isSecretName} (`GITHUB_TOKEN`, `DB_PASSWORD`), and
 * the passwords of URLs in any value (`DATABASE_URL=postgres://u:pw@h/db`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { secretEnvValues } from "./redact.ts";
 * const env = { BUB_API_KEY: "sk-123456", DATABASE_URL: "postgres://u:pw-7890@h/db" };
 * assert.ok(JSON.stringify(secretEnvValues(env)) === '["sk-123456","pw-7890"]');
 * ```
 */
export function secretEnvValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (holdsSecret(name)) addSecret(values, value);
    addUrlPasswords(values, value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** Whether each variable name seen holds a secret (environments are read on every log line). */
const secretNames = new Map<string, boolean>();

function holdsSecret(name: string): boolean {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = isSecretEnvName(name) || isSecretName(name);
    if (secretNames.size < 4096) secretNames.set(name, secret);
  }
  return secret;
}

/**
 * `text` with every `bot<digits>:<secret>` replaced by `bot[REDACTED]` and every occurrence of
 * one of `secrets` (values under 6 characters are ignored) replaced by `[REDACTED]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactSecrets } from "./redact.ts";
 * const url = "https://api.telegram.org/file/bot123:AAH-x_y/photos/1.jpg";
 * assert.ok(redactSecrets(url) === "https://api.telegram.org/file/bot[REDACTED]/photos/1.jpg");
 * assert.ok(redactSecrets("key sk-123456", ["sk-123456"]) === "key [REDACTED]");
 * ```
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text.includes("bot") ? text.replace(BOT_TOKEN, `bot${REDACTED}`) : text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) {
      out = out.split(secret).join(REDACTED);
    }
  }
  return out;
}

/**
 * An error's text for a log line or message (`Name: message`, plus its cause's message), with
 * {@link redactSecrets} applied.
 */
export function redactedErrorText(error: unknown, secrets: readonly string[] = []): string {
  let text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause !== undefined && cause !== null) {
    text += ` (cause: ${cause instanceof Error ? cause.message : String(cause)})`;
  }
  return redactSecrets(text, secrets);
}
