/**
 * Model ids (`provider:model`), the wire protocols and the provider presets: which protocol and
 * API base each provider key stands for.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";

/**
 * Which wire protocol a provider speaks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerPreset, type ProviderProtocol } from "@bub/core/agent";
 * const protocol: ProviderProtocol = providerPreset("anthropic").protocol;
 * assert.equal(protocol, "anthropic");
 * ```
 */
export type ProviderProtocol =
  | "openai-compatible"
  | "openai-chat"
  | "openai-responses"
  | "anthropic"
  | "google"
  | "bedrock";

/**
 * The AI SDK package that builds a preset's model when it is not the protocol's own: Gemini
 * (`@ai-sdk/google`), Vertex AI (`@ai-sdk/google-vertex`), Azure OpenAI (`@ai-sdk/azure`) and
 * Amazon Bedrock (`@ai-sdk/amazon-bedrock`), each loaded on its first call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerPreset, type ProviderSdk } from "@bub/core/agent";
 * const sdk: ProviderSdk | undefined = providerPreset("azure").sdk;
 * assert.equal(sdk, "azure");
 * ```
 */
export type ProviderSdk = "google" | "vertex" | "azure" | "bedrock";

/**
 * A known provider: its wire protocol and default base URL (null: the SDK's default).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ProviderPreset, providerPreset } from "@bub/core/agent";
 * const ollama: ProviderPreset = providerPreset("ollama");
 * assert.equal(ollama.baseURL, "http://localhost:11434/v1");
 * ```
 */
export interface ProviderPreset {
  /** The wire protocol. */
  protocol: ProviderProtocol;
  /** The default API base, or null for the SDK default (or none, for `custom`). */
  baseURL: string | null;
  /** The SDK package that builds the model, when not the protocol's own (see {@link ProviderSdk}). */
  sdk?: ProviderSdk;
}

/**
 * The providers Bub can call, by lowercase provider key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PROVIDER_PRESETS } from "@bub/core/agent";
 * assert.ok("openrouter" in PROVIDER_PRESETS);
 * assert.equal(PROVIDER_PRESETS.openai?.protocol, "openai-chat");
 * ```
 */
export const PROVIDER_PRESETS: Readonly<Record<string, Readonly<ProviderPreset>>> = Object.freeze({
  openai: { protocol: "openai-chat", baseURL: null },
  "openai-responses": { protocol: "openai-responses", baseURL: null },
  anthropic: { protocol: "anthropic", baseURL: null },
  openrouter: { protocol: "openai-compatible", baseURL: "https://openrouter.ai/api/v1" },
  ollama: { protocol: "openai-compatible", baseURL: "http://localhost:11434/v1" },
  deepseek: { protocol: "openai-compatible", baseURL: "https://api.deepseek.com/v1" },
  groq: { protocol: "openai-compatible", baseURL: "https://api.groq.com/openai/v1" },
  mistral: { protocol: "openai-compatible", baseURL: "https://api.mistral.ai/v1" },
  together: { protocol: "openai-compatible", baseURL: "https://api.together.xyz/v1" },
  vllm: { protocol: "openai-compatible", baseURL: "http://localhost:8000/v1" },
  lmstudio: { protocol: "openai-compatible", baseURL: "http://localhost:1234/v1" },
  custom: { protocol: "openai-compatible", baseURL: null },
  // Cloud providers, each through its own AI SDK package (cloud_models.ts; issue 33 item 2).
  gemini: { protocol: "google", baseURL: null, sdk: "google" },
  google: { protocol: "google", baseURL: null, sdk: "google" },
  vertex: { protocol: "google", baseURL: null, sdk: "vertex" },
  azure: { protocol: "openai-chat", baseURL: null, sdk: "azure" },
  "azure-responses": { protocol: "openai-responses", baseURL: null, sdk: "azure" },
  bedrock: { protocol: "bedrock", baseURL: null, sdk: "bedrock" },
  // A ChatGPT subscription (`bub login openai`): the Responses API of the ChatGPT backend.
  "openai-codex": {
    protocol: "openai-responses",
    baseURL: "https://chatgpt.com/backend-api/codex",
  },
});

/**
 * A parsed model id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ModelId, parseModelId } from "@bub/core/agent";
 * const id: ModelId = parseModelId("openai:gpt-4o");
 * assert.deepEqual(id, { provider: "openai", model: "gpt-4o" });
 * ```
 */
export interface ModelId {
  /** The provider key, e.g. `openrouter`. */
  provider: string;
  /** The provider's model id, e.g. `openrouter/free`. */
  model: string;
}

/**
 * Splits `provider:model`: whichever of `:` and `/` comes first is the delimiter (`/` is the
 * deprecated legacy form). Throws `BubError(invalid_input)` when there is neither.
 *
 * @example Parsing ids
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseModelId } from "@bub/core/agent";
 * assert.ok(parseModelId("ollama:llama3.2:1b").model === "llama3.2:1b");
 * assert.ok(parseModelId("openai/gpt-4o").provider === "openai");
 * ```
 */
export function parseModelId(id: string): ModelId {
  const colon = id.indexOf(":");
  const slash = id.indexOf("/");
  let at: number;
  if (colon >= 0 && (slash < 0 || colon < slash)) at = colon;
  else if (slash >= 0) at = slash;
  else {
    throw new BubError(
      "invalid_input",
      `Invalid model id ${JSON.stringify(id)}: expected "provider:model" (e.g. "openai:gpt-4o")`,
      { model: id },
    );
  }
  return { provider: id.slice(0, at), model: id.slice(at + 1) };
}

/**
 * Returns the preset of `provider`, or throws `BubError(config)` for an unsupported one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { providerPreset } from "@bub/core/agent";
 * assert.equal(providerPreset("groq").baseURL, "https://api.groq.com/openai/v1");
 * ```
 */
export function providerPreset(provider: string): ProviderPreset {
  const preset = Object.hasOwn(PROVIDER_PRESETS, provider) ? PROVIDER_PRESETS[provider] : undefined;
  if (!preset) {
    throw new BubError(
      "config",
      `Unsupported provider ${JSON.stringify(provider)}: expected one of ${
        Object.keys(PROVIDER_PRESETS).join(", ")
      }`,
      { provider },
    );
  }
  return preset;
}
