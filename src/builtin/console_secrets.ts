/**
 * The secret values the web console never sends to its page: the one list of secrets
 * (`_internal/secrets.ts`) for the console's settings sources.
 *
 * @module
 */
import process from "node:process";
import { knownSecrets, registerSecretsOf } from "../_internal/secrets.ts";
import type { SettingsSources } from "./settings.ts";

/**
 * The secrets of `sources` (the environment's secret-named variables, and every secret-shaped
 * setting of the config data: `api_key` as a string or a map by provider, `telegram.token`, MCP
 * server credentials, URL passwords), which are registered in the process-wide list, plus every
 * secret registered before; longest first. Invalid settings do not matter: the config data is
 * read as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { consoleSecrets } from "./console_secrets.ts";
 * const secrets = consoleSecrets({ env: { BUB_API_KEY: "sk-test-123456" } });
 * assert.ok(secrets.includes("sk-test-123456"));
 * ```
 */
export function consoleSecrets(sources: SettingsSources = {}): string[] {
  const env = sources.env ?? process.env;
  registerSecretsOf({ env, config: sources.config });
  if (sources.dotenv) registerSecretsOf({ env: sources.dotenv });
  return [...knownSecrets({ env })];
}
