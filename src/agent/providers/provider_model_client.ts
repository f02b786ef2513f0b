/**
 * The {@link ProviderModelClient} that calls OpenAI-compatible, OpenAI (chat and Responses) and
 * Anthropic endpoints, and the cloud providers of `cloud_models.ts` (Gemini, Vertex AI, Azure
 * OpenAI, Amazon Bedrock). Chat-completions requests go through the direct client
 * (`chat_completions_client.ts`) when it reproduces the SDK's request exactly; the rest go through
 * the AI SDK providers at the `LanguageModelV4` level, one provider model per model id (built in
 * `_provider_models.ts`; model ids and provider presets: `provider_presets.ts`; keys, bases and
 * the rest of its settings: `provider_settings.ts`).
 *
 * @module
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
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
import { type FetchLike, withActivity, withEventLimit } from "./_request_body.ts";
import { withToolCallMerge } from "./_sse_tool_calls.ts";
import { type ChatCompletionsTarget, streamChatCompletions } from "./chat_completions_client.ts";
import { chatBodyCovers, chatRequestBody, chatRequestBytes } from "./_chat_body.ts";
import { type ModelId, parseModelId, providerPreset } from "./provider_presets.ts";
import { chatTarget, createLanguageModel } from "./_provider_models.ts";
import type { ProviderSettings } from "./provider_settings.ts";
import { subscriptionModel } from "./openai_subscription.ts";

export type { CloudSettings } from "./cloud_models.ts";
export type { FetchLike } from "./_request_body.ts";
export {
  lookupProviderSetting,
  type ProviderSetting,
  type ProviderSettings,
} from "./provider_settings.ts";
export {
  type ModelId,
  parseModelId,
  PROVIDER_PRESETS,
  type ProviderPreset,
  providerPreset,
  type ProviderProtocol,
  type ProviderSdk,
} from "./provider_presets.ts";

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
