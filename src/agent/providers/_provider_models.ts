/**
 * Private: what serves one model id of a `ProviderModelClient`: the direct chat-completions
 * target when the direct client builds its requests ({@link chatTarget}), else the AI SDK's
 * `LanguageModelV4`, its provider package loaded on first use ({@link createLanguageModel}).
 *
 * @module
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { lazyImport } from "../../_internal/lazy.ts";
import { BubError } from "../../kernel/errors.ts";
import type { FetchLike } from "./_request_body.ts";
import { type ChatCompletionsTarget, resolveChatTarget } from "./chat_completions_client.ts";
import { createCloudModel } from "./cloud_models.ts";
import { defaultOpenAIAuthLocation, sharedOpenAIAuth } from "./openai_auth.ts";
import { type ModelId, providerPreset } from "./provider_presets.ts";
import { lookupProviderSetting, type ProviderSettings } from "./provider_settings.ts";

const HEADER_KEYS = ["headers", "default_headers", "extra_headers"];

// The AI SDK providers cost ~100 ms of import time each: each is loaded on its first call.
const openaiModule = lazyImport(() => import("@ai-sdk/openai"));
const anthropicModule = lazyImport(() => import("@ai-sdk/anthropic"));
const compatibleModule = lazyImport(() => import("@ai-sdk/openai-compatible"));
const codexModule = lazyImport(() => import("./openai_codex.ts"));

function clientOptions(settings: ProviderSettings): {
  headers: Record<string, string>;
  rest: Record<string, unknown>;
} {
  const headers: Record<string, string> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings.clientArgs ?? {})) {
    if (HEADER_KEYS.includes(key)) {
      for (const [name, item] of Object.entries((value ?? {}) as Record<string, unknown>)) {
        if (item != null) headers[name] = String(item);
      }
    } else rest[key] = value;
  }
  return { headers, rest };
}

/** Everything needed to build one provider model. */
export interface LanguageModelInit {
  /** The parsed model id. */
  id: ModelId;
  /** The provider settings. */
  settings: ProviderSettings;
  /** The `fetch` to use (already wrapped by the caller when it adds body fields). */
  fetch: FetchLike;
}

/**
 * Creates the AI SDK `LanguageModelV4` for a model id (loading its provider package on first
 * use). Throws `BubError(config)` for an unsupported provider or a `custom` provider without an
 * API base.
 */
export async function createLanguageModel(init: LanguageModelInit): Promise<LanguageModelV4> {
  const { id, settings, fetch } = init;
  const preset = providerPreset(id.provider);
  const apiKey = lookupProviderSetting(settings.apiKey, id.provider) ?? undefined;
  const baseURL = lookupProviderSetting(settings.apiBase, id.provider) ?? preset.baseURL ??
    undefined;
  const { headers, rest } = clientOptions(settings);
  if (id.provider === "openai-codex") {
    const auth = sharedOpenAIAuth(settings.openaiAuth ?? defaultOpenAIAuthLocation());
    const base = lookupProviderSetting(settings.apiBase, id.provider);
    const init = { model: id.model, baseURL: base, headers, rest, auth, fetch };
    return (await codexModule()).codexLanguageModel(init);
  }
  if (preset.sdk !== undefined) {
    const cloud = settings.cloud ?? {};
    return createCloudModel({ id, preset, apiKey, baseURL, headers, rest, fetch, cloud });
  }
  const common = { ...rest, headers, fetch, ...(apiKey ? { apiKey } : {}) };
  switch (preset.protocol) {
    case "openai-chat": {
      const { createOpenAI } = await openaiModule();
      return createOpenAI({ ...common, ...(baseURL ? { baseURL } : {}) }).chat(id.model);
    }
    case "openai-responses": {
      const { createOpenAI } = await openaiModule();
      return createOpenAI({ ...common, ...(baseURL ? { baseURL } : {}) }).responses(id.model);
    }
    case "anthropic": {
      const { createAnthropic } = await anthropicModule();
      return createAnthropic({ ...common, ...(baseURL ? { baseURL } : {}) }).messages(id.model);
    }
    case "google":
    case "bedrock":
      throw new BubError("config", `Provider ${JSON.stringify(id.provider)} has no SDK package`, {
        provider: id.provider,
      });
    case "openai-compatible": {
      if (!baseURL) {
        throw new BubError(
          "config",
          `Provider ${JSON.stringify(id.provider)} needs an API base: set api_base for it`,
          { provider: id.provider },
        );
      }
      const { createOpenAICompatible } = await compatibleModule();
      return createOpenAICompatible({
        ...common,
        name: id.provider,
        baseURL,
        includeUsage: true,
      }).chatModel(id.model);
    }
  }
}

/** The direct chat-completions target of a model (null: the AI SDK builds its requests). */
export function chatTarget(
  id: ModelId,
  settings: ProviderSettings,
  fetch: FetchLike,
): ChatCompletionsTarget | null {
  const preset = providerPreset(id.provider);
  // A cloud provider's own package builds its requests (its URLs, auth and signing).
  if (preset.sdk !== undefined) return null;
  const { headers, rest } = clientOptions(settings);
  return resolveChatTarget({
    id,
    preset,
    apiKey: lookupProviderSetting(settings.apiKey, id.provider),
    apiBase: lookupProviderSetting(settings.apiBase, id.provider),
    headers,
    sdkOnlyArgs: Object.keys(rest).length > 0,
    fetch,
  });
}
