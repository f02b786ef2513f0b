/**
 * Loading heavy dependencies on first use instead of at import time, so importing `mod.ts` stays
 * cheap: {@link lazyModule} for synchronous code paths, {@link lazyImport} for asynchronous ones.
 *
 * Synchronous loading uses `require` relative to this file. That works wherever the package sits
 * on disk (a checkout, `node_modules`). When it is loaded from a remote URL (JSR), `require` is
 * not available: {@link preloadDependencies} then imports every registered module once (the
 * framework does so in `loadHooks()` and `running()`), after which the loaders answer
 * synchronously.
 *
 * @module
 */
import { createRequire } from "node:module";

let nodeRequire: ((specifier: string) => unknown) | null | undefined;

function requireFunction(): ((specifier: string) => unknown) | null {
  if (nodeRequire === undefined) {
    nodeRequire = import.meta.url.startsWith("file:") ? createRequire(import.meta.url) : null;
  }
  return nodeRequire;
}

/** True when dependencies can be loaded synchronously (the package sits on disk). */
export function canRequire(): boolean {
  return requireFunction() !== null;
}

/** A module loaded on first use: call it for the module; `preload()` loads it asynchronously. */
export interface LazyModule<T> {
  /** The module, loaded now if needed. */
  (): T;
  /** Loads the module with `import()` (always possible). */
  preload(): Promise<T>;
}

const registry: LazyModule<unknown>[] = [];

/**
 * Returns a loader for `specifier`. `load` must be `() => import("<specifier>")` with the literal
 * specifier, so publishing tools can see the dependency. A failed load is not cached.
 *
 * @example Loading `yaml` on first use
 * ```ts ignore
 * const yaml = lazyModule("yaml", () => import("yaml"));
 * yaml().parse("a: 1");
 * ```
 */
export function lazyModule<T>(specifier: string, load: () => Promise<T>): LazyModule<T> {
  let loaded: T | undefined;
  const get = (() => {
    if (loaded !== undefined) return loaded;
    const require = requireFunction();
    if (require === null) {
      throw new Error(
        `Cannot load "${specifier}" synchronously: @bub/core was loaded from a remote URL; ` +
          "await preloadDependencies() (or framework.loadHooks() / framework.running()) first",
      );
    }
    loaded = require(specifier) as T;
    return loaded;
  }) as LazyModule<T>;
  get.preload = async () => {
    loaded ??= await load();
    return loaded;
  };
  registry.push(get as LazyModule<unknown>);
  return get;
}

/** Imports every registered lazy module that cannot be required synchronously. */
export async function preloadDependencies(): Promise<void> {
  if (canRequire()) return;
  await Promise.all(registry.map((module) => module.preload()));
}

/**
 * Returns a loader that calls `load` (an `import(...)` of a literal specifier) once and resolves
 * every later call to the same module. A rejected load is not cached: the next call tries again.
 *
 * @example Importing a provider on its first call
 * ```ts ignore
 * const openai = lazyImport(() => import("@ai-sdk/openai"));
 * const { createOpenAI } = await openai();
 * ```
 */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = null;
      throw error;
    });
    return pending;
  };
}
