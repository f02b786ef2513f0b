/**
 * Redaction of secrets from text bound for logs and error messages: Telegram bot tokens in URLs
 * (`bot<digits>:<secret>`), and the values of secret-named environment variables
 * (`BUB_*KEY*`, `BUB_*TOKEN*`, `BUB_*SECRET*`).
 *
 * @module
 */

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** A Bot API path segment carrying a token: `bot123456:AAH...` (as in `/file/bot<TOKEN>/...`). */
const BOT_TOKEN = /\bbot\d+:[A-Za-z0-9_-]+/g;

/** Shorter values are not redacted (they would mangle ordinary text). */
const MIN_SECRET_LENGTH = 6;

/**
 * True for the name of an environment variable that holds a secret: it starts with `BUB_` and
 * contains `KEY`, `TOKEN` or `SECRET` (case-insensitive).
 *
 * @example
 * ```ts
 * import { isSecretEnvName } from "./redact.ts";
 * console.assert(isSecretEnvName("BUB_TELEGRAM_TOKEN"));
 * console.assert(isSecretEnvName("bub_openai_api_key"));
 * console.assert(!isSecretEnvName("BUB_MODEL"));
 * console.assert(!isSecretEnvName("OPENAI_API_KEY"));
 * ```
 */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return upper.startsWith("BUB_") &&
    (upper.includes("KEY") || upper.includes("TOKEN") || upper.includes("SECRET"));
}

/** The values of the secret-named variables of `env` (at least 6 characters), longest first. */
export function secretEnvValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isSecretEnvName(name)) continue;
    const text = value.trim();
    if (text.length >= MIN_SECRET_LENGTH) values.add(text);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/**
 * `text` with every `bot<digits>:<secret>` replaced by `bot[REDACTED]` and every occurrence of
 * one of `secrets` (values under 6 characters are ignored) replaced by `[REDACTED]`.
 *
 * @example
 * ```ts
 * import { redactSecrets } from "./redact.ts";
 * const url = "https://api.telegram.org/file/bot123:AAH-x_y/photos/1.jpg";
 * console.assert(redactSecrets(url) === "https://api.telegram.org/file/bot[REDACTED]/photos/1.jpg");
 * console.assert(redactSecrets("key sk-123456", ["sk-123456"]) === "key [REDACTED]");
 * ```
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(BOT_TOKEN, `bot${REDACTED}`);
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
