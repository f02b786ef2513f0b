/**
 * API key / base lookup and the {@link ProviderModelClient} that calls OpenAI-compatible, OpenAI
 * (chat and Responses) and Anthropic endpoints, and the cloud providers of `cloud_models.ts`
 * (Gemini, Vertex AI, Azure OpenAI, Amazon Bedrock). Chat-completions requests go through the direct
 * client (`chat_completions_client.ts`) when it reproduces the SDK's request exactly; the rest
 * go through the AI SDK providers at the `LanguageModelV4` level, one provider model per model
 * id (model ids and provider presets: `provider_presets.ts`).
 *
 * @module
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { lazyImport } from "../../_internal/lazy.ts";
import { LinkedSignal } from "../../_internal/linked_signal.ts";
import { BubError } from "../../kernel/errors.ts";
import {
  markOwnClient,
  MODEL_CLIENT_SPECIFICATION_VERSION,
  type ModelClient,
  type ModelEvent,
  type ModelRequest,
  type ModelStreamOptions,
} from "../model_client.ts";
import { buildCall, streamLanguageModel } from "./_model_stream.ts";
import { withEventLimit } from "../_answer_limit.ts";
import { type FetchLike, withActivity } from "./_request_body.ts";
import { withToolCallMerge } from "./_sse_tool_calls.ts";
import {
  type ChatCompletionsTarget,
  resolveChatTarget,
  streamChatCompletions,
} from "./chat_completions_client.ts";
import { chatBodyCovers, chatRequestBody, chatRequestBytes } from "./_chat_body.ts";
import { type ModelId, parseModelId, providerPreset } from "./provider_presets.ts";
import { type CloudSettings, createCloudModel } from "./cloud_models.ts";

export type { CloudSettings } from "./cloud_models.ts";
import { defaultOpenAIAuthLocation, sharedOpenAIAuth } from "./openai_auth.ts";
import { subscriptionModel } from "./openai_subscription.ts";

export type { FetchLike } from "./_request_body.ts";

export {
  type ModelId,
  parseModelId,
  PROVIDER_PRESETS,
  type ProviderPreset,
  providerPreset,
  type ProviderProtocol,
  type ProviderSdk,
} from "./provider_presets.ts";

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
 * How {@link ProviderModelClient} creates provider clients.
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
interface LanguageModelInit {
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
async function createLanguageModel(init: LanguageModelInit): Promise<LanguageModelV4> {
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
function chatTarget(
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

function defaultFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  return globalThis.fetch(input, init);
}

/**
 * The {@link ModelClient} over real providers. `request.model` is a full `provider:model` id,
 * parsed on every call; a bad id or an unsupported provider throws when the stream is iterated.
 *
 * @example One call against an OpenAI-compatible endpoint
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProviderModelClient } from "@bub/core/agent";
 * import { MockLlmServer } from "@bub/core/testing";
 * await using server = await MockLlmServer.start({ script: [{ text: "hello" }] }); // a local endpoint
 * const client = new ProviderModelClient({ apiKey: "sk-test", apiBase: server.url });
 * let text = "";
 * for await (const event of client.stream({
 *   model: "openai:gpt-4o",
 *   messages: [{ role: "user", content: "hi" }],
 *   maxTokens: 256,
 * })) {
 *   if (event.type === "text") text += event.delta;
 * }
 * assert.equal(text, "hello");
 * ```
 */
export class ProviderModelClient implements ModelClient {
  /** The interface version. */
  readonly specificationVersion: typeof MODEL_CLIENT_SPECIFICATION_VERSION =
    MODEL_CLIENT_SPECIFICATION_VERSION;
  #settings: ProviderSettings;
  /** One provider model per model id, built on its first call and reused by later ones. */
  #models = new Map<string, Promise<LanguageModelV4>>();
  /** The direct chat-completions target per model id (null: through the AI SDK). */
  #targets = new Map<string, ChatCompletionsTarget | null>();
  /** Each call's own `fetch` (its body fields, activity, tool-call merge), by its abort signal. */
  #calls = new WeakMap<AbortSignal, FetchLike>();

  /**
   * Creates a client; nothing is validated or contacted until a call.
   *
   * @param settings keys, bases, client args and an optional `fetch`
   */
  constructor(settings: ProviderSettings = {}) {
    this.#settings = { ...settings };
    // A subclass may replace `stream`: not noted.
    if (new.target === ProviderModelClient) markOwnClient(this);
  }

  /** Streams one call; see {@link ModelClient.stream}. */
  stream(request: ModelRequest, options: ModelStreamOptions = {}): AsyncGenerator<ModelEvent> {
    const subscription = subscriptionModel(request.model, this.#settings);
    if (subscription !== null) request = { ...request, model: subscription };
    // A request the direct client covers gets its generator as it is (no generator around every
    // event). Whatever fails here fails again, the same way, when the full stream is iterated.
    let direct: AsyncGenerator<ModelEvent> | null = null;
    try {
      direct = this.#direct(request, options);
    } catch {
      direct = null;
    }
    return direct ?? this.#stream(request, options);
  }

  /** The direct client's stream of a request it covers, else null. */
  #direct(request: ModelRequest, options: ModelStreamOptions): AsyncGenerator<ModelEvent> | null {
    const id = parseModelId(request.model);
    const target = this.#target(request.model, id);
    if (target === null || !chatBodyCovers(target.protocol, id, request)) return null;
    const body = target.fetch === defaultFetch
      ? chatRequestBytes(target.protocol, id, request)
      : chatRequestBody(target.protocol, id, request);
    return body === null ? null : streamChatCompletions(target, body, options);
  }

  async *#stream(
    request: ModelRequest,
    options: ModelStreamOptions,
  ): AsyncGenerator<ModelEvent> {
    const id = parseModelId(request.model);
    const preset = providerPreset(id.provider);
    const target = this.#target(request.model, id);
    if (target !== null && chatBodyCovers(target.protocol, id, request)) {
      // The runtime's own fetch gets bytes (a long history copied, not re-encoded); a `fetch`
      // given in the settings gets the body as text, as it always has.
      const body = target.fetch === defaultFetch
        ? chatRequestBytes(target.protocol, id, request)
        : chatRequestBody(target.protocol, id, request);
      if (body !== null) {
        yield* streamChatCompletions(target, body, options);
        return;
      }
    }
    // Every call has a signal of its own: the cached model's fetch finds the call's fetch by it.
    // Linked, not `AbortSignal.any()`, which would keep each call's signal from a long-lived one.
    const linked = new LinkedSignal([options.signal]);
    const signal = linked.signal;
    const base = withActivity(this.#settings.fetch ?? defaultFetch, options.onActivity);
    const { fetch, callOptions } = buildCall(
      preset.protocol,
      request,
      options.maxAnswerBytes == null ? base : withEventLimit(base, options.maxAnswerBytes),
      signal,
    );
    // Chat-completions tool calls merge as Bub specifies (missing ids, names in pieces).
    const chat = preset.protocol === "openai-chat" || preset.protocol === "openai-compatible";
    this.#calls.set(signal, chat ? withToolCallMerge(fetch) : fetch);
    try {
      const model = await this.#model(request.model, id);
      yield* streamLanguageModel(model, callOptions, id, options.signal, options.maxAnswerBytes);
    } finally {
      this.#calls.delete(signal);
      linked[Symbol.dispose]();
    }
  }

  /** The direct chat-completions target of a model id (null: the SDK path), built once. */
  #target(key: string, id: ModelId): ChatCompletionsTarget | null {
    let target = this.#targets.get(key);
    if (target === undefined) {
      target = chatTarget(id, this.#settings, this.#settings.fetch ?? defaultFetch);
      this.#targets.set(key, target);
    }
    return target;
  }

  #model(key: string, id: ModelId): Promise<LanguageModelV4> {
    let model = this.#models.get(key);
    if (model === undefined) {
      model = createLanguageModel({ id, settings: this.#settings, fetch: this.#route });
      this.#models.set(key, model);
      // A model that could not be built (bad settings) is not kept: the next call tries again.
      model.catch(() => this.#models.delete(key));
    }
    return model;
  }

  /** The cached models' `fetch`: hands each request to the `fetch` of the call it belongs to. */
  #route: FetchLike = (input, init) => {
    const call = init?.signal ? this.#calls.get(init.signal) : undefined;
    if (call === undefined) {
      return Promise.reject(
        new BubError("unknown", "Model request without its call (no matching abort signal)"),
      );
    }
    return call(input, init);
  };
}
