/**
 * The builtin plugin's default model client: a {@link ProviderModelClient} imported on the first
 * call, so that importing `@bub/core` loads none of the provider code (chat-completions client,
 * SSE parsing, AI SDK glue).
 *
 * @module
 */
import { lazyImport } from "../_internal/lazy.ts";
import {
  markOwnClient,
  MODEL_CLIENT_SPECIFICATION_VERSION,
  type ModelClient,
  type ModelEvent,
  type ModelRequest,
  type ModelStreamOptions,
} from "../agent/model_client.ts";
import type {
  ProviderModelClient,
  ProviderSettings,
} from "../agent/providers/provider_model_client.ts";

/** A model client that creates a `ProviderModelClient` on its first call and delegates to it. */
export class LazyProviderModelClient implements ModelClient {
  /** The interface version. */
  readonly specificationVersion: typeof MODEL_CLIENT_SPECIFICATION_VERSION =
    MODEL_CLIENT_SPECIFICATION_VERSION;
  readonly #client: () => Promise<ProviderModelClient>;
  /** The client once imported: later calls hand its stream out as it is (no generator around it). */
  #loaded: ProviderModelClient | null = null;

  /**
   * Creates the object (nothing is imported or contacted yet).
   *
   * @param settings the `ProviderModelClient` settings
   */
  constructor(settings: ProviderSettings = {}) {
    const copy = { ...settings };
    this.#client = lazyImport(async () =>
      new (await import("../agent/providers/provider_model_client.ts")).ProviderModelClient(copy)
    );
    // It hands the request to the provider client as it is. A subclass: not noted.
    if (new.target === LazyProviderModelClient) markOwnClient(this);
  }

  /** Streams one call through the provider client; see {@link ModelClient.stream}. */
  stream(request: ModelRequest, options?: ModelStreamOptions): AsyncGenerator<ModelEvent> {
    const loaded = this.#loaded;
    return loaded !== null ? loaded.stream(request, options) : this.#firstStream(request, options);
  }

  async *#firstStream(
    request: ModelRequest,
    options?: ModelStreamOptions,
  ): AsyncGenerator<ModelEvent> {
    const client = await this.#client();
    this.#loaded = client;
    yield* client.stream(request, options);
  }
}
