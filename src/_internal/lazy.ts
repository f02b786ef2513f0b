/**
 * Importing a heavy, optional dependency on first use, on a path that is already asynchronous
 * (creating a model client, starting a channel, searching a tape): {@link lazyImport}.
 * Synchronous code imports what it needs statically; there is no synchronous loader.
 *
 * @module
 */

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
