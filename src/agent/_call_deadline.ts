/**
 * The two limits of one model call: an overall timeout over the call and its stream, and a
 * stall timeout (no bytes from the provider for that long, counted from the request). Each aborts the call's signal with a
 * `BubError` of kind `temporary`.
 *
 * @module
 */
import { BubError } from "../kernel/errors.ts";
import { LinkedSignal } from "../_internal/linked_signal.ts";

/** Used when a runner's settings leave `modelTimeoutSeconds` undefined. */
export const DEFAULT_MODEL_TIMEOUT_SECONDS = 600;
/** Used when a runner's settings leave `modelStallTimeoutSeconds` undefined. */
export const DEFAULT_MODEL_STALL_TIMEOUT_SECONDS = 120;

// setTimeout fires at once for delays past 2^31 - 1 ms: longer limits are no limits.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Checks a limit in seconds: a finite number > 0, or null/undefined/0 for none (`undefined`
 * takes `fallback`). Anything else throws a `config` error naming `name`.
 */
export function checkLimitSeconds(
  name: string,
  value: unknown,
  fallback: number,
): number | null {
  if (value === undefined) return fallback;
  if (value === null || value === 0) return null;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new BubError(
      "config",
      `${name} must be a number greater than 0, or null, got ${JSON.stringify(value) ?? value}`,
    );
  }
  return value;
}

/** Limits of one model call; dispose it when the call's stream is done. */
export class CallDeadline implements Disposable {
  /** Aborted by the caller's signal or by either limit. */
  readonly signal: AbortSignal | undefined;
  #linked: LinkedSignal;
  #overall: ReturnType<typeof setTimeout> | undefined;
  #stall: ReturnType<typeof setTimeout> | undefined;
  #stallMs: number | null;
  #stallSeconds: number | null;
  #failure: BubError | null = null;
  #done = false;
  #lastActivity = 0;

  /**
   * Starts both clocks.
   *
   * @param limits seconds of each limit (null for none) and the caller's signal
   */
  constructor(
    limits: { timeoutSeconds: number | null; stallSeconds: number | null; signal?: AbortSignal },
  ) {
    const { timeoutSeconds, stallSeconds, signal } = limits;
    this.#stallSeconds = stallSeconds;
    this.#stallMs = stallSeconds && stallSeconds * 1000 <= MAX_TIMER_MS
      ? stallSeconds * 1000
      : null;
    const bounded = (timeoutSeconds && timeoutSeconds * 1000 <= MAX_TIMER_MS) ||
      this.#stallMs !== null;
    // Linked, not `AbortSignal.any()`: the caller's signal may live long (a running scope), and
    // `any()` would keep every call's signal from it (see linked_signal.ts).
    this.#linked = new LinkedSignal(bounded ? [signal] : []);
    this.signal = bounded ? this.#linked.signal : signal;
    if (timeoutSeconds && timeoutSeconds * 1000 <= MAX_TIMER_MS) {
      this.#overall = setTimeout(
        () => this.#fail(`Model call timed out after ${timeoutSeconds} seconds.`),
        timeoutSeconds * 1000,
      );
    }
  }

  /** The error of the limit that fired, or null. */
  get failure(): BubError | null {
    return this.#failure;
  }

  /**
   * Records provider activity (the request going out, bytes or events coming in): starts or
   * restarts the stall clock. The clock starts at the first activity, so loading a provider
   * module is not a stall.
   */
  touch(): void {
    if (this.#stallMs === null || this.#done) return;
    // Activity is a time stamp; one timer at a time checks it when it fires (no timer per chunk).
    this.#lastActivity = performance.now();
    if (this.#stall === undefined) this.#armStall(this.#stallMs);
  }

  #armStall(ms: number): void {
    this.#stall = setTimeout(() => {
      this.#stall = undefined;
      if (this.#done) return;
      const quiet = performance.now() - this.#lastActivity;
      if (quiet >= this.#stallMs!) {
        this.#fail(
          `Model stream stalled: no data from the provider for ${this.#stallSeconds} seconds.`,
        );
      } else this.#armStall(this.#stallMs! - quiet);
    }, ms);
  }

  #fail(message: string): void {
    if (this.#failure !== null) return;
    this.#failure = new BubError("temporary", message);
    this[Symbol.dispose]();
    this.#linked.abort(this.#failure);
  }

  /** Stops both clocks. */
  [Symbol.dispose](): void {
    this.#done = true;
    clearTimeout(this.#overall);
    clearTimeout(this.#stall);
    this.#overall = this.#stall = undefined;
    this.#linked[Symbol.dispose]();
  }
}
