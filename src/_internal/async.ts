/**
 * Async helpers with the documented semantics of `@std/async`: delay, abortable and an abortable
 * async iteration.
 *
 * @module
 */

/** Options of {@link delay}. */
export interface DelayOptions {
  /** Rejects with `signal.reason` when aborted. */
  signal?: AbortSignal;
  /** When false, the timer does not keep the process alive. Default true. */
  persistent?: boolean;
}

/** Resolves after `ms` milliseconds; rejects with `signal.reason` when aborted. */
export function delay(ms: number, options: DelayOptions = {}): Promise<void> {
  const { signal, persistent = true } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    if (!persistent && typeof (timer as { unref?: () => void }).unref === "function") {
      (timer as unknown as { unref: () => void }).unref();
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/**
 * Races `promise` against `signal`: rejects with `signal.reason` as soon as it aborts.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // The given promise is dropped: keep its later rejection from going unhandled.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  const { promise: aborted, reject } = Promise.withResolvers<never>();
  const abort = () => reject(signal.reason);
  signal.addEventListener("abort", abort, { once: true });
  return Promise.race([promise, aborted]).finally(() => {
    signal.removeEventListener("abort", abort);
  });
}

/**
 * {@link abortable} for a sequence of promises raced one at a time against one signal (a stream's
 * `next()` calls): one abort listener for all of them instead of one each. Dispose it to remove
 * the listener.
 */
export class AbortRace implements Disposable {
  #signal: AbortSignal | undefined;
  #reject: ((reason: unknown) => void) | null = null;
  #abort = () => {
    const reject = this.#reject;
    this.#reject = null;
    reject?.(this.#signal!.reason);
  };

  /**
   * Creates the object.
   *
   * @param signal the signal to race against (none: promises are returned as they are)
   */
  constructor(signal: AbortSignal | undefined) {
    this.#signal = signal;
    signal?.addEventListener("abort", this.#abort, { once: true });
  }

  /** `promise`, or its rejection with `signal.reason` as soon as the signal aborts. */
  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.#signal;
    if (!signal) return promise;
    if (signal.aborted) {
      promise.catch(() => {});
      return Promise.reject(signal.reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.#reject = reject;
      promise.then((value) => {
        if (this.#reject === reject) this.#reject = null;
        resolve(value);
      }, (error) => {
        if (this.#reject === reject) this.#reject = null;
        reject(error);
      });
    });
  }

  /** Removes the abort listener. */
  [Symbol.dispose](): void {
    this.#reject = null;
    this.#signal?.removeEventListener("abort", this.#abort);
  }
}

/**
 * Iterates `iterable` until `signal` aborts; then throws `signal.reason` at once and closes the
 * source (without waiting for a `next()` still in flight, which may never settle).
 */
export async function* abortableIterable<T>(
  iterable: AsyncIterable<T>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  if (!signal) {
    yield* iterable;
    return;
  }
  signal.throwIfAborted();
  const iterator = iterable[Symbol.asyncIterator]();
  let pulling = false;
  let done = false;
  try {
    while (true) {
      pulling = true;
      const result = await abortable(iterator.next(), signal);
      pulling = false;
      if (result.done) {
        done = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (pulling) _closeLater(iterator);
    else if (!done) await iterator.return?.();
  }
}

/** Asks `iterator` to close once its pending `next()` settles, ignoring the outcome. */
function _closeLater(iterator: AsyncIterator<unknown>): void {
  Promise.resolve().then(() => iterator.return?.()).catch(() => {});
}
