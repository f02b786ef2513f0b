/**
 * Bub's loggers without loading LogTape at import time (it costs ~10-15 ms of import time).
 *
 * LogTape keeps its root logger on `globalThis[Symbol.for("logtape.rootLogger")]`; whoever
 * configures logging (an application, `bub`'s CLI, a test) has loaded LogTape and so created it.
 * Until then LogTape has no sinks and would drop every record, so a record logged before that is
 * dropped here too; after that each logger resolves, once, to the LogTape logger of its category
 * (`root.getChild(category)`, the one `getLogger(category)` returns) and forwards every call.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";

/** The logging methods Bub uses, with LogTape's signatures. */
export type BubLogger = Pick<
  Logger,
  "trace" | "debug" | "info" | "warn" | "warning" | "error" | "fatal" | "isEnabledFor"
>;

const ROOT_LOGGER = Symbol.for("logtape.rootLogger");

type Method = Exclude<keyof BubLogger, "isEnabledFor">;

class LazyLogger {
  #category: readonly string[];
  #logger: Logger | null = null;

  constructor(category: readonly string[]) {
    this.#category = category;
  }

  #resolve(): Logger | null {
    if (this.#logger !== null) return this.#logger;
    const root = (globalThis as Record<symbol, Logger | null | undefined>)[ROOT_LOGGER];
    if (root == null) return null;
    this.#logger = root.getChild(this.#category as [string, ...string[]]);
    return this.#logger;
  }

  /** False until LogTape is in use (nothing would receive the record), then LogTape's answer. */
  isEnabledFor(level: Parameters<Logger["isEnabledFor"]>[0]): boolean {
    return this.#resolve()?.isEnabledFor(level) ?? false;
  }

  forward(method: Method, args: unknown[]): void {
    const logger = this.#resolve();
    if (logger !== null) (logger[method] as (...args: unknown[]) => void)(...args);
  }
}

/**
 * The logger of `category` (e.g. `["bub", "kernel"]`): LogTape's `getLogger(category)` once
 * LogTape is in use, a no-op before (when LogTape would drop the record anyway).
 */
export function getLogger(category: readonly [string, ...string[]]): BubLogger {
  const lazy = new LazyLogger(category);
  const method = (name: Method) => (...args: unknown[]): void => lazy.forward(name, args);
  return {
    trace: method("trace"),
    debug: method("debug"),
    info: method("info"),
    warn: method("warn"),
    warning: method("warning"),
    error: method("error"),
    fatal: method("fatal"),
    isEnabledFor: (level) => lazy.isEnabledFor(level),
  } as BubLogger;
}
