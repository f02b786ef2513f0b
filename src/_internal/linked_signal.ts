/**
 * A signal that aborts when any of its sources aborts, and lets go of them when disposed.
 *
 * `AbortSignal.any()` keeps a reference from each source to the combined signal (a weak one in
 * a set, and a strong one while the combined signal has an abort listener). On a long-lived
 * source (a running scope, a channel) with one combined signal per call, that is memory kept per
 * call: measured 1.2 KB per call on Node 24 and Deno when a listener is left on the combined
 * signal (fetch leaves one), 70–120 bytes when it is removed. A `LinkedSignal` adds one listener
 * to each source and removes it on dispose: nothing stays behind.
 *
 * @module
 */

/** Aborted (with the source's reason) when a source aborts, or by {@link LinkedSignal.abort}. */
export class LinkedSignal implements Disposable {
  #controller = new AbortController();
  #sources: AbortSignal[] = [];
  #onAbort = (event: Event): void => {
    this.abort((event.target as AbortSignal).reason);
  };

  /**
   * Links the signal to `sources` (undefined entries are skipped). An already aborted source
   * aborts it at once.
   */
  constructor(sources: readonly (AbortSignal | undefined)[]) {
    for (const source of sources) {
      if (!source) continue;
      if (source.aborted) {
        this.abort(source.reason);
        return;
      }
      source.addEventListener("abort", this.#onAbort);
      this.#sources.push(source);
    }
  }

  /** The combined signal. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Aborts the combined signal (once) and unlinks it from its sources. */
  abort(reason?: unknown): void {
    this[Symbol.dispose]();
    this.#controller.abort(reason);
  }

  /** Removes the listeners from the sources; the signal no longer follows them. */
  [Symbol.dispose](): void {
    for (const source of this.#sources) source.removeEventListener("abort", this.#onAbort);
    this.#sources.length = 0;
  }
}
