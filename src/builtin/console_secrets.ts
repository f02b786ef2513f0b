/**
 * The secret values the web console never sends to its page: the `BUB_*KEY*`/`*TOKEN*`/`*SECRET*`
 * environment variables and the API keys of the agent settings (which may come from config.yml
 * only).
 *
 * @module
 */
import process from "node:process";
import { secretEnvValues } from "../_internal/redact.ts";
import { loadAgentSettings, type SettingsSources } from "./settings.ts";

const MIN_SECRET_LENGTH = 6;

/**
 * The secret values of the environment and the configured `api_key` (a string or a map by
 * provider), longest first. Settings that do not load add nothing (the turn reports them).
 *
 * @example
 * ```ts
 * import { consoleSecrets } from "./console_secrets.ts";
 * const secrets = consoleSecrets({ env: { BUB_API_KEY: "sk-test-123456" } });
 * console.assert(secrets.includes("sk-test-123456"));
 * ```
 */
export function consoleSecrets(sources: SettingsSources = {}): string[] {
  const env = sources.env ?? process.env;
  const values = new Set(secretEnvValues(env));
  let key: unknown = null;
  try {
    key = loadAgentSettings(sources).api_key;
  } catch {
    // Invalid settings fail the turns that read them; there is no key to hide.
  }
  const keys = typeof key === "string"
    ? [key]
    : key && typeof key === "object"
    ? Object.values(key)
    : [];
  for (const value of keys) {
    if (typeof value === "string" && value.trim().length >= MIN_SECRET_LENGTH) {
      values.add(value.trim());
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}
