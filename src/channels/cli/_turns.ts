/**
 * Which turns started from the CLI are running, tracked through the message lifespans.
 *
 * @module
 */

/**
 * The message lifespan of a typed line: entered when its turn starts, disposed when it ends.
 *
 * @example
 * ```ts
 * import type { CliTurnLifespan } from "@bub/core/channels";
 * async function runTurn(lifespan: CliTurnLifespan, turn: () => Promise<void>): Promise<void> {
 *   await using _ = lifespan;
 *   await lifespan.enter();
 *   await turn();
 * }
 * ```
 */
export interface CliTurnLifespan extends AsyncDisposable {
  /** The turn started (shows the spinner). */
  enter(): Promise<void>;
  /** Settles when the turn started. */
  readonly started: Promise<void>;
  /** Settles when the turn ended. */
  readonly ended: Promise<void>;
}

/** Callbacks of a {@link TurnTracker}. */
export interface TurnTrackerHooks {
  /** A turn started. */
  started(sessionId: string): void;
  /** A turn ended; `idle` is true when no turn runs any more. */
  ended(sessionId: string, idle: boolean): Promise<void>;
}

/** Counts running turns per session. */
export class TurnTracker {
  #running = new Map<string, number>();
  #hooks: TurnTrackerHooks;

  /** @param hooks called when turns start and end */
  constructor(hooks: TurnTrackerHooks) {
    this.#hooks = hooks;
  }

  /** True while any turn runs. */
  get busy(): boolean {
    return this.#running.size > 0;
  }

  /** Sessions with a running turn. */
  sessions(): string[] {
    return [...this.#running.keys()];
  }

  /** A lifespan for one message of `sessionId` (entering twice or disposing unentered is a no-op). */
  lifespan(sessionId: string): CliTurnLifespan {
    let entered = false;
    const started = Promise.withResolvers<void>();
    const ended = Promise.withResolvers<void>();
    return {
      started: started.promise,
      ended: ended.promise,
      enter: () => {
        started.resolve();
        if (!entered) {
          entered = true;
          this.#running.set(sessionId, (this.#running.get(sessionId) ?? 0) + 1);
          this.#hooks.started(sessionId);
        }
        return Promise.resolve();
      },
      [Symbol.asyncDispose]: async () => {
        ended.resolve();
        if (!entered) return;
        entered = false;
        const left = (this.#running.get(sessionId) ?? 1) - 1;
        if (left > 0) this.#running.set(sessionId, left);
        else this.#running.delete(sessionId);
        await this.#hooks.ended(sessionId, this.#running.size === 0);
      },
    };
  }
}
