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
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then((value) => {
      signal.removeEventListener("abort", abort);
      resolve(value);
    }, (error) => {
      signal.removeEventListener("abort", abort);
      reject(error);
    });
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

/** The iterator of {@link abortableIterable}. */
class AbortableIterator<T> implements AsyncIterableIterator<T> {
  #iterable: AsyncIterable<T>;
  #iterator: AsyncIterator<T> | null = null;
  #race: AbortRace;
  #signal: AbortSignal;
  #pulling = false;
  #finished = false;

  constructor(iterable: AsyncIterable<T>, signal: AbortSignal) {
    this.#iterable = iterable;
    this.#signal = signal;
    this.#race = new AbortRace(signal);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#finished) return Promise.resolve({ done: true, value: undefined });
    let iterator = this.#iterator;
    if (iterator === null) {
      if (this.#signal.aborted) return this.#fail(this.#signal.reason);
      iterator = this.#iterator = this.#iterable[Symbol.asyncIterator]();
    }
    this.#pulling = true;
    return this.#race.race(iterator.next()).then((result) => {
      this.#pulling = false;
      if (result.done) this.#end();
      return result;
    }, (error) => this.#fail(error));
  }

  async return(): Promise<IteratorResult<T>> {
    if (!this.#finished) {
      this.#end();
      // A `next()` still in flight may never settle: then the source is closed once it does.
      if (this.#pulling) _closeLater(this.#iterator!);
      else await this.#iterator?.return?.();
    }
    return { done: true, value: undefined };
  }

  #end(): void {
    this.#finished = true;
    this.#race[Symbol.dispose]();
  }

  #fail(error: unknown): Promise<never> {
    if (!this.#finished) {
      this.#end();
      if (this.#iterator !== null) _closeLater(this.#iterator);
    }
    return Promise.reject(error);
  }
}

/**
 * Iterates `iterable` until `signal` aborts; then throws `signal.reason` at once and closes the
 * source (without waiting for a `next()` still in flight, which may never settle).
 */
export function abortableIterable<T>(
  iterable: AsyncIterable<T>,
  signal: AbortSignal | undefined,
): AsyncIterableIterator<T> {
  if (!signal) return new PlainIterator(iterable);
  return new AbortableIterator(iterable, signal);
}

/**
 * {@link abortableIterable} without a signal: the source's own iterator, opened on first use, its
 * results handed through as they are (for `for await`, which stops at the first done or error).
 */
class PlainIterator<T> implements AsyncIterableIterator<T> {
  #iterable: AsyncIterable<T>;
  #iterator: AsyncIterator<T> | null = null;

  constructor(iterable: AsyncIterable<T>) {
    this.#iterable = iterable;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    return (this.#iterator ??= this.#iterable[Symbol.asyncIterator]()).next();
  }

  async return(): Promise<IteratorResult<T>> {
    await this.#iterator?.return?.();
    return { done: true, value: undefined };
  }
}

/** Asks `iterator` to close once its pending `next()` settles, ignoring the outcome. */
function _closeLater(iterator: AsyncIterator<unknown>): void {
  Promise.resolve().then(() => iterator.return?.()).catch(() => {});
}
