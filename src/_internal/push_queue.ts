/**
 * Turning callbacks into an async iterable: {@link PushQueue}, which a producer pushes to and one
 * consumer drains (the tool events of a step, the events of a streamed turn).
 *
 * @module
 */

/**
 * A queue that callbacks push to and one consumer drains with `for await`, oldest first, until
 * the producer closes it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PushQueue } from "./push_queue.ts";
 * const queue = new PushQueue<number>();
 * queue.push(1);
 * setTimeout(() => (queue.push(2), queue.close()), 0);
 * assert.deepEqual(await Array.fromAsync(queue.drain()), [1, 2]);
 * ```
 */
export class PushQueue<T> {
  #items: T[] = [];
  #closed = false;
  #wake: (() => void) | null = null;

  /** Whether {@link close} was called (what is left may still be drained). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Adds `item` and wakes the consumer. */
  push(item: T): void {
    this.#items.push(item);
    this.#notify();
  }

  /** Ends the queue: the consumer takes what is left, then stops. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  /** Yields the items as they are pushed until the queue is closed and empty. */
  async *drain(): AsyncGenerator<T, void, undefined> {
    while (true) {
      if (this.#items.length > 0) {
        yield this.#items.shift()!;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #notify(): void {
    this.#wake?.();
    this.#wake = null;
  }
}
