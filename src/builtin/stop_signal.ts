/**
 * The signal a long-running `bub` command stops on: SIGINT, SIGTERM, or the command's own signal.
 * Disposing it removes the process listeners.
 *
 * @module
 */
import process from "node:process";

/** A stop signal and the disposer of its process listeners. */
export interface StopSignal extends Disposable {
  /** Aborted on SIGINT, SIGTERM or the extra signal. */
  readonly signal: AbortSignal;
}

/**
 * Aborted on SIGINT, SIGTERM or `extra`; `using` it removes the listeners at the end.
 */
export function stopSignal(extra?: AbortSignal): StopSignal {
  const controller = new AbortController();
  const stop = () => controller.abort(new DOMException("Interrupted", "AbortError"));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return {
    signal: extra ? AbortSignal.any([controller.signal, extra]) : controller.signal,
    [Symbol.dispose]() {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}
