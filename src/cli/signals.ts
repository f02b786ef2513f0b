/**
 * Ending a command on a signal: the first signal aborts the command's `AbortSignal` (the command
 * then ends its running scope, which terminates tool process groups) and `main()` exits with
 * 128 + the signal number; a second signal exits at once.
 *
 * @module
 */
import { constants } from "node:os";
import process from "node:process";

/** The signals a command can be ended by. */
export type TrappedSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** Signal listeners installed by {@link trapSignals}. */
export interface SignalTrap extends Disposable {
  /** Aborted on the first signal. */
  readonly signal: AbortSignal;
  /** 128 + the number of the first signal received, or null. */
  readonly exitCode: number | null;
  /** Removes the listeners. */
  dispose(): void;
}

/** 128 + the number of `name` (SIGHUP 129, SIGINT 130, SIGTERM 143). */
export function signalExitCode(name: TrappedSignal): number {
  return 128 + (constants.signals[name] ?? 0);
}

/**
 * Listens for `names`: the first one aborts {@link SignalTrap.signal} with an `AbortError`; a
 * second one (of any of them) exits the process at once with the first one's code.
 */
export function trapSignals(names: readonly TrappedSignal[]): SignalTrap {
  const controller = new AbortController();
  let exitCode: number | null = null;
  const listeners = names.map((name) => {
    const listener = () => {
      if (exitCode !== null) process.exit(exitCode);
      exitCode = signalExitCode(name);
      controller.abort(new DOMException(`Interrupted by ${name}`, "AbortError"));
    };
    process.on(name, listener);
    return [name, listener] as const;
  });
  const dispose = () => {
    for (const [name, listener] of listeners) process.off(name, listener);
  };
  return {
    signal: controller.signal,
    get exitCode() {
      return exitCode;
    },
    dispose,
    [Symbol.dispose]: dispose,
  };
}
