/**
 * Private: the one walk over a hook's implementations that every dispatcher folds over — generic
 * dispatch (`HookRuntime`), the framework's validated hooks, the running scope and `AgentHooks`.
 *
 * @module
 */
import { kernelLogger } from "./_log.ts";
import type { HookImplementation } from "./plugin_manager.ts";

/** True for a thenable (any object or function with a callable `then`). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

/**
 * Receives one implementation's value (null and undefined as they came, or what `isolate`
 * returned); returning true stops the walk.
 */
export type HookVisit = (value: unknown, impl: HookImplementation) => boolean | void;

/** How a walk runs. */
export interface WalkOptions {
  /** Lowest priority first (`onboardConfig`). Default: priority order. */
  readonly reverse?: boolean;
  /** Give each implementation its own shallow copy of the arguments (`onError`). */
  readonly copyArgs?: boolean;
  /**
   * Catches what an implementation throws (or its promise rejects with); the returned value is
   * visited instead. Rethrow to propagate. Default: errors propagate and stop the walk.
   */
  readonly isolate?: (error: unknown, impl: HookImplementation) => unknown;
}

function ordered(
  impls: readonly HookImplementation[],
  options: WalkOptions,
): readonly HookImplementation[] {
  return options.reverse ? [...impls].reverse() : impls;
}

/** The arguments of a walk: one object, or a function asked before each implementation (chains). */
export type WalkArgs = object | (() => object);

function argsFor(args: WalkArgs, options: WalkOptions): Record<string, unknown> {
  const value = typeof args === "function" ? (args as () => object)() : args;
  return (options.copyArgs ? { ...value } : value) as Record<string, unknown>;
}

/**
 * Calls each implementation in order, awaiting thenables (and nothing else), and hands every
 * value to `visit` until it returns true. Sequential, never concurrent (kernel spec §3.7).
 */
export function walkHook(
  impls: readonly HookImplementation[],
  args: WalkArgs,
  visit: HookVisit,
  options: WalkOptions = {},
): Promise<void> {
  // Nothing to call (most hooks of most turns): no async frame.
  if (impls.length === 0) return DONE;
  try {
    return walkHookNow(impls, args, visit, options) ?? DONE;
  } catch (error) {
    return Promise.reject(error);
  }
}

const DONE: Promise<void> = Promise.resolve();

/**
 * {@link walkHook} that walks synchronously until an implementation returns a thenable: null when
 * the walk is over without one (no promise made), else the promise of the rest of the walk. What
 * an implementation or `visit` throws before that is thrown here.
 */
export function walkHookNow(
  impls: readonly HookImplementation[],
  args: WalkArgs,
  visit: HookVisit,
  options: WalkOptions = {},
): Promise<void> | null {
  const list = ordered(impls, options);
  const isolate = options.isolate;
  for (let i = 0; i < list.length; i++) {
    const impl = list[i]!;
    let value: unknown;
    try {
      value = impl.fn.call(impl.plugin, argsFor(args, options));
    } catch (error) {
      if (!isolate) throw error;
      value = isolate(error, impl);
      if (visit(value, impl) === true) return null;
      continue;
    }
    if (isThenable(value)) return _walk(list, i, value, args, visit, options);
    if (visit(value, impl) === true) return null;
  }
  return null;
}

/** The rest of a walk from `list[at]`, whose implementation returned the thenable `pending`. */
async function _walk(
  list: readonly HookImplementation[],
  at: number,
  pending: PromiseLike<unknown>,
  args: WalkArgs,
  visit: HookVisit,
  options: WalkOptions,
): Promise<void> {
  for (let i = at; i < list.length; i++) {
    const impl = list[i]!;
    let value: unknown;
    if (options.isolate) {
      try {
        value = i === at ? pending : impl.fn.call(impl.plugin, argsFor(args, options));
        if (isThenable(value)) value = await value;
      } catch (error) {
        value = options.isolate(error, impl);
      }
    } else {
      value = i === at ? pending : impl.fn.call(impl.plugin, argsFor(args, options));
      if (isThenable(value)) value = await value;
    }
    if (visit(value, impl) === true) return;
  }
}

/**
 * Like {@link walkHook}, synchronously: an implementation that returns a thenable is skipped
 * with the warning `hook.async_not_supported` (the thenable is never awaited).
 */
export function walkHookSync(
  impls: readonly HookImplementation[],
  args: WalkArgs,
  visit: HookVisit,
  options: WalkOptions = {},
): void {
  for (const impl of ordered(impls, options)) {
    let value: unknown;
    try {
      value = impl.fn.call(impl.plugin, argsFor(args, options));
    } catch (error) {
      if (!options.isolate) throw error;
      value = options.isolate(error, impl);
    }
    if (isThenable(value)) {
      warnAsync(impl.hook, impl.pluginName, value);
      continue;
    }
    if (visit(value, impl) === true) return;
  }
}

/** Logs `hook.async_not_supported` and keeps the never-awaited thenable from rejecting unhandled. */
export function warnAsync(hook: string, adapter: string, value: PromiseLike<unknown>): void {
  kernelLogger.warn("hook.async_not_supported hook={hook} adapter={adapter}", { hook, adapter });
  Promise.resolve(value).catch(() => {});
}
