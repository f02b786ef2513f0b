/**
 * Generic hook dispatch over a {@link PluginManager}: the typed dispatcher {@link HookRuntime.call}
 * derived from the hook signatures, the spec's string-keyed methods (first-result, broadcast,
 * their sync variants), error notification and model dispatch. All of them fold over one walk
 * (`_hook_walk.ts`); results are checked against one table (`hook_results.ts`).
 *
 * @module
 */
import { metaLogger } from "./_log.ts";
import {
  type HookVisit,
  walkHook,
  walkHookNow,
  walkHookSync,
  type WalkOptions,
} from "./_hook_walk.ts";
import { modelFamily, type RunModelArgs, runModelEvents, runModelText } from "./_model_dispatch.ts";
import type { HookImplementation, PluginManager } from "./plugin_manager.ts";
import type { Envelope } from "./envelope.ts";
import {
  type DispatchHook,
  HOOK_SPECS,
  type HookArgs,
  type HookDispatch,
  type HookSpec,
} from "./hook_specs.ts";
import type { AsyncStreamEvents } from "./stream.ts";

export { isThenable } from "./_hook_walk.ts";
export { deltaOf, type RunModelArgs } from "./_model_dispatch.ts";
export { describe } from "./hook_results.ts";

/**
 * Arguments of {@link HookRuntime.notifyError}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin } from "@bub/core";
 * import { KernelFramework, type NotifyErrorArgs } from "@bub/core/kernel";
 * const stages: string[] = [];
 * const kernel = new KernelFramework({ loadDotenv: false });
 * kernel.register(definePlugin({ name: "log", onError: ({ stage }) => void stages.push(stage) }));
 * const args: NotifyErrorArgs = { stage: "my_plugin", error: new Error("boom"), message: null };
 * await kernel.hookRuntime.notifyError(args);
 * assert.deepEqual(stages, ["my_plugin"]);
 * ```
 */
export interface NotifyErrorArgs {
  /** Where the error happened, e.g. `"turn"`. */
  stage: string;
  /** The original error. */
  error: unknown;
  /** The inbound message, or null. */
  message: Envelope | null;
}

const notNull = (value: unknown): boolean => value !== null && value !== undefined;

/**
 * Dispatches hooks in priority order. Dispatch is sequential: order and short-circuiting are part
 * of the contract. Exceptions from implementations propagate, except in {@link notifyError}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { definePlugin } from "@bub/core";
 * import { KernelFramework } from "@bub/core/kernel";
 * const kernel = new KernelFramework({ loadDotenv: false });
 * kernel.register(definePlugin({ name: "a", systemPrompt: () => "Be brief." }));
 * kernel.register(definePlugin({ name: "b", systemPrompt: () => "Cite files." }));
 * assert.deepEqual(kernel.hookRuntime.callManySync("systemPrompt", { prompt: "", state: {} }), [
 *   "Cite files.",
 *   "Be brief.",
 * ]);
 * ```
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

  /**
   * Dispatches one of the 22 non-agent hooks by its spec (`HOOK_SPECS`): a first-result hook
   * answers its first non-null value or null, a broadcast hook every value (nulls included); a
   * sync-only hook answers synchronously. Argument and result types follow the hook's signature.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { definePlugin } from "@bub/core";
   * import { KernelFramework } from "@bub/core/kernel";
   * const bub = new KernelFramework({ loadDotenv: false });
   * bub.register(definePlugin({ name: "p", systemPrompt: () => "Be brief." }));
   * const message = { channel: "cli", chatId: "local", content: "hi" };
   * const sessionId = await bub.hookRuntime.call("resolveSession", { message }); // string | null
   * const parts = bub.hookRuntime.call("systemPrompt", { prompt: "hi", state: {} }); // (string | null)[]
   * assert.equal(sessionId, null); // no plugin resolves sessions here
   * assert.deepEqual(parts, ["Be brief."]);
   * ```
   * @throws {TypeError} for an agent-loop hook (dispatch those through `getAgentHooks()`)
   */
  call<K extends DispatchHook>(hook: K, args: HookArgs<K>): HookDispatch<K> {
    const spec: HookSpec = HOOK_SPECS[hook];
    if (spec.kind !== "firstresult" && spec.kind !== "broadcast") {
      throw new TypeError(
        `Cannot dispatch hook "${hook}" generically: agent-loop hooks run through getAgentHooks()`,
      );
    }
    const a = args as object;
    const result = spec.kind === "firstresult"
      ? (spec.syncOnly ? this.callFirstSync(hook, a) : this.callFirst(hook, a))
      : (spec.syncOnly ? this.callManySync(hook, a) : this.callMany(hook, a));
    return result as HookDispatch<K>;
  }

  #walk(hook: string, args: object, visit: HookVisit, options?: WalkOptions): Promise<void> {
    return walkHook(this.#plugins.implementations(hook), args, visit, options);
  }

  #walkSync(hook: string, args: object, visit: HookVisit, options?: WalkOptions): void {
    walkHookSync(this.#plugins.implementations(hook), args, visit, options);
  }

  /**
   * The first non-null result in priority order (awaiting thenables), or null. String-keyed as
   * kernel spec §3 pins it (a hook without a spec dispatches too); prefer the typed {@link call}.
   */
  callFirst(hook: string, args: object = {}): Promise<unknown> {
    let found: unknown = null;
    return this.#walkThen(hook, args, (value) => {
      if (notNull(value)) found = value;
      return found !== null;
    }, () => found);
  }

  /** Every implementation's result in priority order, nulls included. */
  callMany(hook: string, args: object = {}): Promise<unknown[]> {
    const results: unknown[] = [];
    return this.#walkThen(hook, args, (value) => {
      results.push(value ?? null);
    }, () => results);
  }

  /**
   * Walks `hook`, then resolves with `result()`. Implementations that answer synchronously need
   * no async frame; a synchronous throw rejects the returned promise.
   */
  #walkThen<T>(hook: string, args: object, visit: HookVisit, result: () => T): Promise<T> {
    let rest: Promise<void> | null;
    try {
      rest = walkHookNow(this.#plugins.implementations(hook), args, visit);
    } catch (error) {
      return Promise.reject(error);
    }
    return rest === null ? Promise.resolve(result()) : rest.then(result);
  }

  /** Like {@link callFirst}, synchronously; thenables are skipped with a warning. */
  callFirstSync(hook: string, args: object = {}): unknown {
    let found: unknown = null;
    this.#walkSync(hook, args, (value) => {
      if (notNull(value)) found = value;
      return found !== null;
    });
    return found;
  }

  /** Like {@link callMany}, synchronously; thenables are omitted with a warning. */
  callManySync(hook: string, args: object = {}): unknown[] {
    const results: unknown[] = [];
    this.#walkSync(hook, args, (value) => {
      results.push(value ?? null);
    });
    return results;
  }

  /** Calls every `onError` observer; failures are logged, nothing propagates. */
  async notifyError(args: NotifyErrorArgs): Promise<void> {
    await this.#walk("onError", args, () => {}, onErrorWalk(args));
  }

  /** Like {@link notifyError}, synchronously; thenables are not awaited. */
  notifyErrorSync(args: NotifyErrorArgs): void {
    this.#walkSync("onError", args, () => {}, onErrorWalk(args));
  }

  /**
   * The model family ("text" or "stream") chosen by the newest registered plugin that implements
   * a model hook, or null.
   */
  modelFamily(prefer: "text" | "stream"): "text" | "stream" | null {
    return modelFamily(this.#plugins, prefer);
  }

  /**
   * Runs the model as text: `runModel` (which must return a string or null), or the
   * concatenated `text` deltas of `runModelStream`.
   *
   * @throws {TypeError} when `runModel` returns something else
   */
  runModel(args: RunModelArgs): Promise<string | null> {
    return runModelText(this, args);
  }

  /**
   * Runs the model as a stream: `runModelStream` (which must return an `AsyncStreamEvents` or
   * null), or a one-event stream around `runModel`.
   *
   * @throws {TypeError} when `runModelStream` returns something else
   */
  runModelStream(args: RunModelArgs): Promise<AsyncStreamEvents | null> {
    return runModelEvents(this, args);
  }

  /** Hook name → plugin names, lowest priority first. */
  hookReport(): Record<string, string[]> {
    return this.#plugins.hookReport();
  }
}

/** `onError` observers each get their own copy of the arguments; their failures are logged. */
function onErrorWalk(args: NotifyErrorArgs): WalkOptions {
  return {
    copyArgs: true,
    isolate: (error, impl) => {
      metaLogger.warn("hook.on_error_failed stage={stage} adapter={adapter}: {error}", {
        stage: args.stage,
        adapter: impl.pluginName,
        error,
      });
    },
  };
}
