/**
 * Generic hook dispatch over a {@link PluginManager}: first-result, broadcast, their sync
 * variants, error notification and model dispatch.
 *
 * @module
 */
import { abortableIterable } from "../_internal/async.ts";
import { kernelLogger, metaLogger } from "./_log.ts";
import type { HookImplementation, PluginManager } from "./plugin.ts";
import type { Envelope } from "./envelope.ts";
import { AsyncStreamEvents, type StreamEvent, StreamState } from "./stream.ts";
import type { Prompt, TurnState } from "./turn.ts";

/** True for a thenable (any object or function with a callable `then`). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

/** Arguments of the model hooks. */
export interface RunModelArgs {
  /** The prompt. */
  prompt: Prompt;
  /** The session id. */
  sessionId: string;
  /** The turn state. */
  state: TurnState;
  /** Cancels the model call. */
  signal?: AbortSignal;
}

/** Arguments of {@link HookRuntime.notifyError}. */
export interface NotifyErrorArgs {
  /** Where the error happened, e.g. `"turn"`. */
  stage: string;
  /** The original error. */
  error: unknown;
  /** The inbound message, or null. */
  message: Envelope | null;
}

const SKIP: unique symbol = Symbol("skip");

/**
 * Dispatches hooks in priority order. Dispatch is sequential: order and short-circuiting are part
 * of the contract. Exceptions from implementations propagate, except in {@link notifyError}.
 */
export class HookRuntime {
  #plugins: PluginManager;

  /**
   * Creates the object.
   *
   * @param plugins the registry to dispatch over
   */
  constructor(plugins: PluginManager) {
    this.#plugins = plugins;
  }

  /** The registry. */
  get pluginManager(): PluginManager {
    return this.#plugins;
  }

  /** The implementations of `hook`, highest priority first. */
  implementations(hook: string): readonly HookImplementation[] {
    return this.#plugins.implementations(hook);
  }

  /** The first non-null result in priority order (awaiting thenables), or null. */
  async callFirst(hook: string, args: object = {}): Promise<unknown> {
    for (const impl of this.#plugins.implementations(hook)) {
      let value = impl.fn.call(impl.plugin, args as Record<string, unknown>);
      if (isThenable(value)) value = await value;
      if (value !== null && value !== undefined) return value;
    }
    return null;
  }

  /** Every implementation's result in priority order, nulls included. */
  async callMany(hook: string, args: object = {}): Promise<unknown[]> {
    const results: unknown[] = [];
    for (const impl of this.#plugins.implementations(hook)) {
      let value = impl.fn.call(impl.plugin, args as Record<string, unknown>);
      if (isThenable(value)) value = await value;
      results.push(value ?? null);
    }
    return results;
  }

  /** Like {@link callFirst}, synchronously; thenables are skipped with a warning. */
  callFirstSync(hook: string, args: object = {}): unknown {
    for (const impl of this.#plugins.implementations(hook)) {
      const value = this.#callSync(hook, impl, args);
      if (value !== SKIP && value !== null && value !== undefined) return value;
    }
    return null;
  }

  /** Like {@link callMany}, synchronously; thenables are omitted with a warning. */
  callManySync(hook: string, args: object = {}): unknown[] {
    const results: unknown[] = [];
    for (const impl of this.#plugins.implementations(hook)) {
      const value = this.#callSync(hook, impl, args);
      if (value !== SKIP) results.push(value ?? null);
    }
    return results;
  }

  #callSync(hook: string, impl: HookImplementation, args: object): unknown {
    const value = impl.fn.call(impl.plugin, args as Record<string, unknown>);
    if (isThenable(value)) {
      warnAsync(hook, impl.pluginName, value);
      return SKIP;
    }
    return value;
  }

  /** Calls every `onError` observer; failures are logged, nothing propagates. */
  async notifyError(args: NotifyErrorArgs): Promise<void> {
    for (const impl of this.#plugins.implementations("onError")) {
      try {
        const value = impl.fn.call(impl.plugin, { ...args });
        if (isThenable(value)) await value;
      } catch (error) {
        metaLogger.warn("hook.on_error_failed stage={stage} adapter={adapter}: {error}", {
          stage: args.stage,
          adapter: impl.pluginName,
          error,
        });
      }
    }
  }

  /** Like {@link notifyError}, synchronously; thenables are not awaited. */
  notifyErrorSync(args: NotifyErrorArgs): void {
    for (const impl of this.#plugins.implementations("onError")) {
      try {
        const value = impl.fn.call(impl.plugin, { ...args });
        if (isThenable(value)) warnAsync("onError", impl.pluginName, value);
      } catch (error) {
        metaLogger.warn("hook.on_error_failed stage={stage} adapter={adapter}: {error}", {
          stage: args.stage,
          adapter: impl.pluginName,
          error,
        });
      }
    }
  }

  /**
   * The model family ("text" or "stream") chosen by the newest registered plugin that implements
   * a model hook, or null.
   */
  modelFamily(prefer: "text" | "stream"): "text" | "stream" | null {
    const plugins = [...this.#plugins.plugins.values()].reverse();
    const first = prefer === "text" ? "runModel" : "runModelStream";
    const second = prefer === "text" ? "runModelStream" : "runModel";
    for (const plugin of plugins) {
      if (hasImpl(this.#plugins, plugin, first)) return first === "runModel" ? "text" : "stream";
      if (hasImpl(this.#plugins, plugin, second)) return second === "runModel" ? "text" : "stream";
    }
    return null;
  }

  /**
   * Runs the model as text: `runModel` (which must return a string or null), or the
   * concatenated `text` deltas of `runModelStream`.
   *
   * @throws {TypeError} when `runModel` returns something else
   */
  async runModel(args: RunModelArgs): Promise<string | null> {
    const family = this.modelFamily("text");
    if (family === null) return null;
    if (family === "text") {
      const value = await this.callFirst("runModel", args);
      if (value !== null && typeof value !== "string") {
        throw new TypeError(`hook.run_model must return str or None, got ${describe(value)}`);
      }
      return value as string | null;
    }
    const stream = await this.callFirst("runModelStream", args);
    if (stream === null) return null;
    const events = asStream(stream);
    let text = "";
    try {
      for await (const event of abortableIterable(events, args.signal)) {
        if (event.kind === "text") text += deltaOf(event);
      }
    } finally {
      await events.close();
    }
    return text;
  }

  /**
   * Runs the model as a stream: `runModelStream` (which must return an `AsyncStreamEvents` or
   * null), or a one-event stream around `runModel`.
   *
   * @throws {TypeError} when `runModelStream` returns something else
   */
  async runModelStream(args: RunModelArgs): Promise<AsyncStreamEvents | null> {
    const family = this.modelFamily("stream");
    if (family === null) return null;
    if (family === "stream") {
      const value = await this.callFirst("runModelStream", args);
      if (value === null) return null;
      if (!(value instanceof AsyncStreamEvents)) {
        throw new TypeError(
          `hook.run_model_stream must return AsyncStreamEvents or None, got ${describe(value)}`,
        );
      }
      return value;
    }
    const callFirst = (hook: string, hookArgs: object) => this.callFirst(hook, hookArgs);
    async function* once(): AsyncGenerator<StreamEvent> {
      const value = await callFirst("runModel", args);
      if (value !== null && typeof value !== "string") {
        throw new TypeError(`hook.run_model must return str or None, got ${describe(value)}`);
      }
      yield { kind: "text", data: { delta: value ?? "" } };
    }
    return new AsyncStreamEvents(once(), { state: new StreamState() });
  }

  /** Hook name → plugin names, lowest priority first. */
  hookReport(): Record<string, string[]> {
    return this.#plugins.hookReport();
  }
}

function hasImpl(plugins: PluginManager, plugin: object, hook: string): boolean {
  return plugins.implementations(hook).some((impl) => impl.plugin === plugin);
}

function asStream(value: unknown): AsyncIterable<StreamEvent> & { close(): Promise<void> } {
  if (value instanceof AsyncStreamEvents) return value;
  if (typeof value === "object" && value !== null && Symbol.asyncIterator in value) {
    return new AsyncStreamEvents(value as AsyncIterable<StreamEvent>);
  }
  throw new TypeError(
    `hook.run_model_stream must return AsyncStreamEvents or None, got ${describe(value)}`,
  );
}

/** `String(event.data.delta ?? "")`. */
export function deltaOf(event: StreamEvent): string {
  const delta = (event.data as { delta?: unknown } | undefined)?.delta;
  return delta === null || delta === undefined ? "" : String(delta);
}

/** A short description of a value's type for error messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `an object of type ${value.constructor?.name ?? "Object"}`;
  return `a ${typeof value} (${String(value).slice(0, 40)})`;
}

function warnAsync(hook: string, adapter: string, value: PromiseLike<unknown>): void {
  kernelLogger.warn("hook.async_not_supported hook={hook} adapter={adapter}", { hook, adapter });
  // Never awaited: keep a rejection from surfacing as unhandled.
  Promise.resolve(value).catch(() => {});
}
