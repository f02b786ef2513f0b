/**
 * Async helpers with the documented semantics of `@std/async`: delay, deadline, abortable,
 * retry, pooledMap and merging async iterables.
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

/** Options of {@link deadline}. */
export interface DeadlineOptions {
  /** Also rejects with `signal.reason` when aborted. */
  signal?: AbortSignal;
}

/**
 * Rejects with a `DOMException` named `TimeoutError` when `promise` does not settle within `ms`.
 */
export function deadline<T>(
  promise: Promise<T>,
  ms: number,
  options: DeadlineOptions = {},
): Promise<T> {
  const timeout = AbortSignal.timeout(ms);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  return abortable(promise, signal);
}

/** Thrown by {@link retry} when every attempt failed. */
export class RetryError extends Error {
  /** How many attempts were made. */
  readonly attempts: number;
  /**
   * Creates the error for a retry that gave up.
   * @param cause the last error
   * @param attempts the attempts made
   */
  constructor(cause: unknown, attempts: number) {
    super(`Retrying exceeded the maxAttempts (${attempts}).`, { cause });
    this.name = "RetryError";
    this.attempts = attempts;
  }
}

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Backoff multiplier. Default 2. */
  multiplier?: number;
  /** Longest wait in ms. Default 60000. */
  maxTimeout?: number;
  /** Attempts in all. Default 5. */
  maxAttempts?: number;
  /** First wait in ms. Default 1000. */
  minTimeout?: number;
  /** Jitter in [0, 1]. Default 1 (full jitter). */
  jitter?: number;
  /** Stops retrying when aborted. */
  signal?: AbortSignal;
  /** Decides whether an error is worth another attempt. Default: always. */
  shouldRetry?: (error: unknown, attempt: number) => boolean;
  /** Random source in [0, 1), for tests. */
  random?: () => number;
}

/**
 * Calls `fn` until it succeeds, waiting with exponential backoff and jitter between attempts;
 * throws {@link RetryError} (with the last error as cause) after `maxAttempts`.
 */
export async function retry<T>(fn: () => Promise<T> | T, options: RetryOptions = {}): Promise<T> {
  const {
    multiplier = 2,
    maxTimeout = 60000,
    maxAttempts = 5,
    minTimeout = 1000,
    jitter = 1,
    signal,
    shouldRetry = () => true,
    random = Math.random,
  } = options;
  if (!(maxAttempts >= 1)) {
    throw new RangeError(
      `Cannot retry as 'maxAttempts' must be at least 1: current value is ${maxAttempts}`,
    );
  }
  if (minTimeout > maxTimeout) {
    throw new RangeError(
      `Cannot retry as 'minTimeout' must be <= 'maxTimeout': current values ${minTimeout} > ${maxTimeout}`,
    );
  }
  if (!(jitter >= 0 && jitter <= 1)) {
    throw new RangeError(
      `Cannot retry as 'jitter' must be between 0 and 1: current value is ${jitter}`,
    );
  }
  for (let attempt = 0;; attempt++) {
    signal?.throwIfAborted();
    try {
      return await fn();
    } catch (error) {
      if (!shouldRetry(error, attempt)) throw error;
      if (attempt + 1 >= maxAttempts) throw new RetryError(error, maxAttempts);
      const exp = Math.min(maxTimeout, minTimeout * multiplier ** attempt);
      const wait = Math.round(exp * (1 - jitter * random()));
      await delay(wait, { signal });
    }
  }
}

/**
 * Maps `iterable` through `fn` with at most `limit` calls in flight, yielding results in input
 * order. The first rejection stops the map and is rethrown.
 */
export async function* pooledMap<T, R>(
  limit: number,
  iterable: Iterable<T> | AsyncIterable<T>,
  fn: (item: T) => Promise<R> | R,
): AsyncGenerator<R> {
  if (!(limit >= 1)) {
    throw new RangeError(`Cannot map as 'limit' must be at least 1: current value is ${limit}`);
  }
  const inFlight: Promise<R>[] = [];
  for await (const item of iterable as AsyncIterable<T>) {
    const promise = Promise.resolve().then(() => fn(item));
    promise.catch(() => {});
    inFlight.push(promise);
    if (inFlight.length >= limit) yield await inFlight.shift()!;
  }
  while (inFlight.length > 0) yield await inFlight.shift()!;
}

/**
 * Merges async iterables: yields values as they arrive from any source; ends when all end; the
 * first error ends the merge and is rethrown. When the merge ends early (error or the consumer
 * stops), the sources still open are closed, without waiting for a `next()` still in flight.
 */
export async function* mergeAsyncIterables<T>(...iterables: AsyncIterable<T>[]): AsyncGenerator<T> {
  const iterators = iterables.map((it) => it[Symbol.asyncIterator]());
  const pending = new Map<number, Promise<_Pulled<T>>>();
  const pull = (index: number) => {
    const iterator = iterators[index]!;
    pending.set(
      index,
      Promise.resolve().then(() => iterator.next()).then(
        (result): _Pulled<T> => ({ index, result }),
        (error: unknown): _Pulled<T> => ({ index, error, failed: true }),
      ),
    );
  };
  try {
    iterators.forEach((_, index) => pull(index));
    while (pending.size > 0) {
      const pulled = await Promise.race(pending.values());
      pending.delete(pulled.index);
      if (pulled.failed) throw pulled.error;
      if (pulled.result!.done) continue;
      pull(pulled.index);
      yield pulled.result!.value;
    }
  } finally {
    for (const index of pending.keys()) _closeLater(iterators[index]!);
  }
}

/** One settled `next()` of a merged source. */
interface _Pulled<T> {
  index: number;
  result?: IteratorResult<T>;
  error?: unknown;
  failed?: boolean;
}
