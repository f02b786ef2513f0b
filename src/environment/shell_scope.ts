/**
 * {@link ShellScope}: the lifetime that owns shells, one per `running()` of a framework.
 *
 * @module
 */
import type { ManagedShell } from "./managed_shell.ts";

/**
 * The message of the error raised when a shell starts in a closed scope.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SHELL_RUNTIME_CLOSED } from "@bub/core/environment";
 * assert.equal(SHELL_RUNTIME_CLOSED, "shell runtime is closed"); // the reason shells are ended with
 * ```
 */
export const SHELL_RUNTIME_CLOSED = "shell runtime is closed";

/**
 * A set of shells that live until the scope closes. Closing marks the scope closed, waits for
 * starts in flight, then terminates every shell of the scope concurrently and removes the spill
 * files of the scope's shells (finished ones too); if any termination fails the others still run
 * and an `AggregateError("shell cleanup failed")` is thrown.
 *
 * @example
 * ```ts
 * import { ShellManager } from "./shell_manager.ts";
 * const shells = new ShellManager();
 * {
 *   await using _scope = shells.openScope();
 *   await shells.start({ command: "sleep 30" });
 * } // the sleep is terminated here
 * ```
 */
export class ShellScope implements AsyncDisposable {
  #closed = false;
  #closing: Promise<void> | null = null;
  #shells = new Set<ManagedShell>();
  #starts = new Set<Promise<unknown>>();
  #onClose: (scope: ShellScope) => void;
  #afterClose: (scope: ShellScope) => Promise<void> | void;

  /**
   * Creates an open scope.
   *
   * @param onClose called once when closing begins (the manager stops treating it as current)
   * @param afterClose called once when the shells are terminated (the manager removes their
   *   spill files); must not throw
   */
  constructor(
    onClose: (scope: ShellScope) => void = () => {},
    afterClose: (scope: ShellScope) => Promise<void> | void = () => {},
  ) {
    this.#onClose = onClose;
    this.#afterClose = afterClose;
  }

  /** True once closing began; new shells are refused with `shell runtime is closed`. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The live shells of this scope. */
  get shells(): ManagedShell[] {
    return [...this.#shells];
  }

  /** Adds a shell (called by the manager). */
  add(shell: ManagedShell): void {
    this.#shells.add(shell);
  }

  /** Removes a finalized shell (called by the manager). */
  delete(shell: ManagedShell): void {
    this.#shells.delete(shell);
  }

  /** Tracks a start in flight so that closing waits for it. */
  track<T>(start: Promise<T>): Promise<T> {
    this.#starts.add(start);
    const untrack = () => this.#starts.delete(start);
    start.then(untrack, untrack);
    return start;
  }

  /** Closes the scope (idempotent): see {@link ShellScope}. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /** Same as {@link ShellScope.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    this.#closed = true;
    this.#onClose(this);
    while (this.#starts.size > 0) await Promise.allSettled([...this.#starts]);
    const results = await Promise.allSettled([...this.#shells].map((shell) => shell.terminate()));
    await this.#afterClose(this);
    const errors = results.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
    if (errors.length > 0) throw new AggregateError(errors, "shell cleanup failed");
  }
}
