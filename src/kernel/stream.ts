/**
 * Streaming contracts: events, the shared terminal state, and an async iterator with close
 * semantics.
 *
 * @module
 */
import type { BubError } from "./errors.ts";

export type {
  StreamEvent,
  StreamEventInit,
  StreamEventKind,
  StreamEventMap,
  StreamEventOf,
} from "./stream_events.ts";
import type { StreamEvent, StreamEventInit } from "./stream_events.ts";

/**
 * The terminal state of a stream, filled by its producer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AsyncStreamEvents } from "@bub/core";
 * import { StreamState } from "@bub/core/kernel";
 * const state = new StreamState();
 * state.usage = { total_tokens: 3 };
 * const events = new AsyncStreamEvents((async function* () {})(), { state });
 * assert.deepEqual(events.usage, { total_tokens: 3 });
 * ```
 */
export class StreamState {
  /** The stream's error, if it ended with one. */
  error: BubError | null = null;
  /** Token usage reported by the provider. */
  usage: Record<string, unknown> | null = null;
}

/**
 * Options of {@link AsyncStreamEvents}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AsyncStreamEvents } from "@bub/core";
 * import type { AsyncStreamEventsOptions } from "@bub/core/kernel";
 * let closed = false;
 * const options: AsyncStreamEventsOptions = { onClose: () => void (closed = true) };
 * const events = new AsyncStreamEvents((async function* () {})(), options);
 * await events.close();
 * assert.ok(closed);
 * ```
 */
export interface AsyncStreamEventsOptions {
  /** The shared state; a fresh one by default. */
  state?: StreamState;
  /** Runs once when the stream closes, after the inner iterator's own close. */
  onClose?: () => void | Promise<void>;
}

/**
 * An async iterable of {@link StreamEvent}s that closes itself when its inner iterator finishes
 * or throws. `close()` is idempotent, may run before the first `next()`, closes the inner
 * iterator and then runs `onClose`; after closing, `next()` reports done.
 *
 * @example Wrap a generator
 * ```ts
 * import assert from "node:assert/strict";
 * import { AsyncStreamEvents } from "@bub/core";
 * async function* events() { yield { kind: "text", data: { delta: "hi" } }; }
 * const stream = new AsyncStreamEvents(events());
 * for await (const event of stream) assert.ok(event.kind === "text");
 * ```
 */
export class AsyncStreamEvents implements AsyncIterableIterator<StreamEvent>, AsyncDisposable {
  #inner: AsyncIterator<StreamEvent>;
  #onClose: (() => void | Promise<void>) | undefined;
  #closed = false;
  #closing: Promise<void> | null = null;
  /** The shared terminal state. */
  readonly state: StreamState;

  /**
   * Creates the object.
   *
   * @param iterator the events
   * @param options shared state and a close callback
   */
  constructor(
    iterator: AsyncIterator<StreamEventInit> | AsyncIterable<StreamEventInit>,
    options: AsyncStreamEventsOptions = {},
  ) {
    // Producers may be loose (see StreamEventInit); consumers are told to skip unknown kinds.
    const inner = isAsyncIterable(iterator) ? iterator[Symbol.asyncIterator]() : iterator;
    this.#inner = inner as AsyncIterator<StreamEvent>;
    this.state = options.state ?? new StreamState();
    this.#onClose = options.onClose;
  }

  /** The stream's terminal error; meaningful after consumption. */
  get error(): BubError | null {
    return this.state.error;
  }

  /** The stream's usage; meaningful after consumption. */
  get usage(): Record<string, unknown> | null {
    return this.state.usage;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The stream itself: it is its own iterator. */
  [Symbol.asyncIterator](): AsyncIterableIterator<StreamEvent> {
    return this;
  }

  /** The next event; done once the stream is closed. */
  next(): Promise<IteratorResult<StreamEvent>> {
    if (this.#closed) return Promise.resolve({ done: true, value: undefined });
    let pending: PromiseLike<IteratorResult<StreamEvent>> | IteratorResult<StreamEvent>;
    try {
      pending = this.#inner.next();
    } catch (error) {
      return this.#finish(false).then(() => Promise.reject(error));
    }
    // One reaction per event (no async frame): an event is handed on as the inner gave it.
    return Promise.resolve(pending).then(this.#settled, this.#failed);
  }

  #settled = (result: Step): Step | Promise<Step> => {
    if (!result.done) return result;
    return this.#finish(false).then(() => ({ done: true, value: undefined }));
  };

  #failed = (error: unknown): Promise<never> =>
    this.#finish(false).then(() => Promise.reject(error));

  /** Closes the stream (consumer stopped early). */
  async return(): Promise<IteratorResult<StreamEvent>> {
    await this.close();
    return { done: true, value: undefined };
  }

  /** Closes the stream, then rethrows `error`. */
  async throw(error?: unknown): Promise<IteratorResult<StreamEvent>> {
    await this.close();
    throw error;
  }

  /** Closes the inner iterator (when it has `return`) and then runs `onClose`. Idempotent. */
  close(): Promise<void> {
    return this.#finish(true);
  }

  /** Same as {@link AsyncStreamEvents.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #finish(closeInner: boolean): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    this.#closing = (async () => {
      try {
        if (closeInner && typeof this.#inner.return === "function") await this.#inner.return();
      } finally {
        await this.#onClose?.();
      }
    })();
    return this.#closing;
  }
}

type Step = IteratorResult<StreamEvent>;

function isAsyncIterable(value: unknown): value is AsyncIterable<StreamEventInit> {
  return typeof value === "object" && value !== null &&
    typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === "function" &&
    typeof (value as { next?: unknown }).next !== "function";
}

/** A stream over the given events, e.g. for a plugin that answers in one piece. */
export function streamOf(
  events: Iterable<StreamEventInit>,
  options: AsyncStreamEventsOptions = {},
): AsyncStreamEvents {
  async function* generate(): AsyncGenerator<StreamEventInit> {
    yield* events;
  }
  return new AsyncStreamEvents(generate(), options);
}
