/**
 * The environment of tool processes: the host's variables minus every secret-named one
 * (`isSecretEnvName`: `BUB_` names with a `*KEY`/`*TOKEN` segment or `SECRET`/`PASSWORD`, and
 * the provider keys `*_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`; case-insensitive)
 * unless listed to pass through, plus the variables a caller adds. A prompt-injected `env` must not put API keys or the bot
 * token on the tape.
 *
 * @module
 */
import process from "node:process";
import { isSecretEnvName } from "../_internal/redact.ts";

/** The variable listing secret-named variables that tool processes keep (comma-separated). */
export const PASSTHROUGH_ENV = "BUB_TOOL_ENV_PASSTHROUGH";

/** Parses a comma-separated list of variable names (blank entries dropped). */
export function parseNameList(text: string | null | undefined): string[] {
  return (text ?? "").split(",").map((name) => name.trim()).filter(Boolean);
}

/**
 * `base` without its secret-named variables, except those named in `passthrough`
 * (case-insensitive).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scrubSecrets } from "./tool_env.ts";
 * const env = scrubSecrets({ PATH: "/bin", BUB_API_KEY: "sk-1", BUB_X_TOKEN: "t" }, ["BUB_X_TOKEN"]);
 * assert.ok(JSON.stringify(env) === '{"PATH":"/bin","BUB_X_TOKEN":"t"}');
 * ```
 */
export function scrubSecrets(
  base: Readonly<Record<string, string | undefined>>,
  passthrough: readonly string[] = [],
): Record<string, string> {
  const keep = new Set(passthrough.map((name) => name.toUpperCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isSecretEnvName(name) && !keep.has(name.toUpperCase())) continue;
    out[name] = value;
  }
  return out;
}

/** What {@link toolEnvironment} needs of a spawn request. */
export interface ToolEnvRequest {
  /** Variables added on top (kept even when secret-named: the caller asked for them). */
  env: Readonly<Record<string, string>> | null;
  /** Secret-named variables to keep; null or absent reads `BUB_TOOL_ENV_PASSTHROUGH` of `base`. */
  envPassthrough?: readonly string[] | null;
}

/**
 * The complete environment of a tool process: `base` (default: the host's) scrubbed by
 * {@link scrubSecrets}, then `request.env` on top. Spawn it with the parent's environment
 * cleared.
 */
export function toolEnvironment(
  request: ToolEnvRequest,
  base: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const passthrough = request.envPassthrough ?? parseNameList(base[PASSTHROUGH_ENV]);
  return { ...scrubSecrets(base, passthrough), ...(request.env ?? {}) };
}
