/**
 * An unbounded FIFO queue whose `get` waits for the next item and gives up when a signal aborts.
 *
 * @module
 */

interface Waiter<T> {
  resolve(item: T): void;
  reject(reason: unknown): void;
}

/** Unbounded FIFO queue with an abortable `get`. */
export class InboundQueue<T> {
  #items: T[] = [];
  #head = 0;
  #waiters: Waiter<T>[] = [];

  /** Items waiting. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Appends `item`, handing it straight to the oldest waiter if any. */
  put(item: T): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(item);
    else this.#items.push(item);
  }

  /** The oldest item; waits for one. Rejects with `signal.reason` once `signal` aborts. */
  get(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.size > 0) return Promise.resolve(this.#take());
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter<T> = {
        resolve: (item) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(item);
        },
        reject,
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #take(): T {
    const item = this.#items[this.#head] as T;
    this.#head++;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
