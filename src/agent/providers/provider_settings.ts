/**
 * How a `ProviderModelClient` reaches the providers: API keys and bases, one string for
 * every provider or a map by provider key ({@link lookupProviderSetting}), extra client arguments,
 * the `fetch`, the cloud providers' settings and the ChatGPT login.
 *
 * @module
 */
import type { CloudSettings } from "./cloud_models.ts";
import type { FetchLike } from "./_request_body.ts";

/**
 * An `api_key` / `api_base` setting: one string for every provider or a map by provider key.
 *
 * @example
 * ```ts
 * import { ProviderModelClient, type ProviderSetting } from "@bub/core/agent";
 * const apiKey: ProviderSetting = { openai: "sk-...", anthropic: "sk-ant-..." };
 * const client = new ProviderModelClient({ apiKey });
 * ```
 */
export type ProviderSetting = string | Readonly<Record<string, string | null | undefined>> | null;

/**
 * Looks a per-provider setting up: a string applies to every provider; a map is read by the
 * lowercase provider key (`openai-responses` falls back to `openai`); missing gives null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lookupProviderSetting } from "@bub/core/agent";
 * assert.equal(lookupProviderSetting({ openai: "k1" }, "openai"), "k1");
 * assert.equal(lookupProviderSetting("shared-key", "anthropic"), "shared-key");
 * ```
 */
export function lookupProviderSetting(
  setting: ProviderSetting | undefined,
  provider: string,
): string | null {
  if (setting == null) return null;
  if (typeof setting === "string") return setting;
  const key = provider.toLowerCase();
  const value = setting[key] ??
    (key === "openai-responses" ? setting["openai"] : undefined);
  return typeof value === "string" && value !== "" ? value : null;
}

/**
 * How a `ProviderModelClient` creates provider clients.
 *
 * @example
 * ```ts
 * import { ProviderModelClient, type ProviderSettings } from "@bub/core/agent";
 * const settings: ProviderSettings = {
 *   apiKey: "sk-test",
 *   apiBase: { ollama: "http://127.0.0.1:11434/v1" },
 *   fetch: globalThis.fetch,
 * };
 * const client = new ProviderModelClient(settings);
 * ```
 */
export interface ProviderSettings {
  /** `api_key`: a string for all providers or a map by provider key; sent as a header only. */
  apiKey?: ProviderSetting;
  /** `api_base`: a string for all providers or a map by provider key. */
  apiBase?: ProviderSetting;
  /**
   * `client_args`: extra provider constructor settings. `headers`, `default_headers` and
   * `extra_headers` are merged into the request headers; other keys go to the constructor.
   */
  clientArgs?: Readonly<Record<string, unknown>> | null;
  /** The `fetch` used for every request (default: the global one, looked up per call). */
  fetch?: FetchLike;
  /** What Vertex AI, Azure OpenAI and Amazon Bedrock need beyond a key and a base. */
  cloud?: CloudSettings;
  /**
   * The ChatGPT login (`bub login openai`) that `openai-codex:` models use, and `openai:` models
   * when no OpenAI key or base is configured (see `openai_subscription.ts`): the token file
   * (`<BUB_HOME>/auth/openai.json`) and the issuer that refreshes it (default
   * `https://auth.openai.com`). Default: none (`openai-codex:` then reads the default home's).
   */
  openaiAuth?: { file: string; issuer?: string | null } | null;
}
