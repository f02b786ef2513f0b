/**
 * Keyed in-process serialisation: calls with the same key run one after another.
 *
 * @module
 */

/** Runs async sections one at a time per key. */
export class KeyedMutex {
  #tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` after every earlier call with the same key has settled. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.then(() => {}, () => {});
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
