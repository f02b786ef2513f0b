/**
 * What Ctrl-C does in the CLI channel: a second press within a second quits; otherwise the
 * running turns are cancelled through the `onInterrupt` option, and their sessions are
 * remembered as cancelling until their next turn starts (a line typed meanwhile follows up
 * instead of steering the turn that is winding down).
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { getLogger } from "../../_internal/log.ts";
import type { CliChannelOptions } from "./_options.ts";

const QUIT_WINDOW_MS = 1000;

/** What a Ctrl-C press led to. */
export type InterruptOutcome = "quit" | "cancelling" | "idle";

/** Ctrl-C presses and the sessions whose turns they cancelled. */
export class Interrupts {
  #options: Pick<CliChannelOptions, "now" | "onInterrupt">;
  #outside: <R>(fn: () => R) => R = AsyncLocalStorage.snapshot();
  #lastPress = Number.NEGATIVE_INFINITY;
  #cancelling = new Set<string>();

  /** @param options the channel's options (`now`, `onInterrupt`), read at each press */
  constructor(options: Pick<CliChannelOptions, "now" | "onInterrupt">) {
    this.#options = options;
  }

  /**
   * One press: `quit` when it comes within a second of the previous one; else `cancelling` when
   * `sessions` have running turns and `onInterrupt` is set (it is then called for each, soon and
   * outside any turn's async context); else `idle`.
   */
  press(sessions: readonly string[]): InterruptOutcome {
    const now = (this.#options.now ?? Date.now)();
    if (now - this.#lastPress <= QUIT_WINDOW_MS) {
      this.#lastPress = Number.NEGATIVE_INFINITY;
      return "quit";
    }
    this.#lastPress = now;
    const { onInterrupt } = this.#options;
    if (sessions.length === 0 || !onInterrupt) return "idle";
    for (const sessionId of sessions) {
      this.#cancelling.add(sessionId);
      // Run outside any turn's async context: on Deno the stdin callbacks inherit the running
      // turn's context, and the manager's quit() would then spare that turn as "its caller".
      Promise.resolve().then(() => this.#outside(() => onInterrupt(sessionId))).catch((error) =>
        getLogger(["bub", "channels", "cli"]).warn("cli.interrupt_failed: {error}", { error })
      );
    }
    return "cancelling";
  }

  /** True while the session's turn cancelled by Ctrl-C winds down. */
  cancelling(sessionId: string): boolean {
    return this.#cancelling.has(sessionId);
  }

  /** A new turn of the session started: it is not cancelling any more. */
  turnStarted(sessionId: string): void {
    this.#cancelling.delete(sessionId);
  }
}
