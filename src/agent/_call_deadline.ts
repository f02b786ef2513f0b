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

/**
 * Limits of one model call; dispose it when the call's stream is done. One timer serves both
 * limits (a `setTimeout` and its `clearTimeout` cost 1.6–2.8 µs on Deno, four per call with a
 * timer for each, two with one): it is armed for the nearer of the two limits, and when it
 * fires it checks both and is armed again for what is left.
 */
export class CallDeadline implements Disposable {
  /** Aborted by the caller's signal or by either limit. */
  readonly signal: AbortSignal | undefined;
  #linked: LinkedSignal;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** `performance.now()` at which the overall limit ends, or null for none. */
  #end: number | null;
  #timeoutSeconds: number | null;
  #stallMs: number | null;
  #stallSeconds: number | null;
  #failure: BubError | null = null;
  #done = false;
  /** The last provider activity, or -1 before the first (the stall clock has not started). */
  #lastActivity = -1;

  /**
   * Starts both clocks.
   *
   * @param limits seconds of each limit (null for none) and the caller's signal
   */
  constructor(
    limits: { timeoutSeconds: number | null; stallSeconds: number | null; signal?: AbortSignal },
  ) {
    const { timeoutSeconds, stallSeconds, signal } = limits;
    this.#timeoutSeconds = timeoutSeconds;
    this.#stallSeconds = stallSeconds;
    this.#stallMs = stallSeconds && stallSeconds * 1000 <= MAX_TIMER_MS
      ? stallSeconds * 1000
      : null;
    const overallMs = timeoutSeconds && timeoutSeconds * 1000 <= MAX_TIMER_MS
      ? timeoutSeconds * 1000
      : null;
    const bounded = overallMs !== null || this.#stallMs !== null;
    // Linked, not `AbortSignal.any()`: the caller's signal may live long (a running scope), and
    // `any()` would keep every call's signal from it (see linked_signal.ts).
    this.#linked = new LinkedSignal(bounded ? [signal] : []);
    this.signal = bounded ? this.#linked.signal : signal;
    this.#end = overallMs === null ? null : performance.now() + overallMs;
    // Armed for the nearer end: the stall clock starts later (at the first activity), so its end
    // is never before this one; firing early, the timer is armed again for what is left.
    const first = Math.min(overallMs ?? Infinity, this.#stallMs ?? Infinity);
    if (first !== Infinity) this.#arm(first);
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
    // Activity is a time stamp; the timer checks it when it fires (no timer per chunk).
    this.#lastActivity = performance.now();
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#check(), ms);
  }

  /** The timer fired: fails the call for the limit that is over, or arms it for what is left. */
  #check(): void {
    this.#timer = undefined;
    if (this.#done) return;
    const now = performance.now();
    if (this.#end !== null && now >= this.#end) {
      this.#fail(`Model call timed out after ${this.#timeoutSeconds} seconds.`);
      return;
    }
    let next = this.#end === null ? Infinity : this.#end - now;
    if (this.#stallMs !== null) {
      // Before the first activity the stall clock has not started: a whole stall limit is left.
      const quiet = this.#lastActivity < 0 ? 0 : now - this.#lastActivity;
      if (quiet >= this.#stallMs) {
        this.#fail(
          `Model stream stalled: no data from the provider for ${this.#stallSeconds} seconds.`,
        );
        return;
      }
      next = Math.min(next, this.#stallMs - quiet);
    }
    if (next !== Infinity) this.#arm(next);
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
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#linked[Symbol.dispose]();
  }
}
