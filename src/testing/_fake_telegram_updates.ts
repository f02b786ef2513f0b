/**
 * Private: the fake Bot API's update queue — what the test pushes, what `getUpdates` hands out
 * (the updates below `offset` confirmed and dropped, a long poll held until an update arrives,
 * its timeout, its client leaves or the fake closes) and what `deleteWebhook` drops.
 *
 * @module
 */
import type { ServerResponse } from "node:http";

/** The updates queued for the bot and not yet confirmed. */
export class UpdateQueue {
  #updates: Array<Record<string, unknown>> = [];
  #nextId = 1;
  #pollers = new Set<() => void>();
  #closed = false;

  /** How many updates wait. */
  get length(): number {
    return this.#updates.length;
  }

  /** Queues `update` (its `update_id`, or the next one) and wakes pending polls; returns the id. */
  push(update: Record<string, unknown>): number {
    const id = typeof update.update_id === "number" ? update.update_id : this.#nextId;
    this.#nextId = Math.max(this.#nextId, id + 1);
    this.#updates.push({ ...update, update_id: id });
    this.#wake();
    return id;
  }

  /** Drops every queued update (`deleteWebhook` with `drop_pending_updates`). */
  clear(): void {
    this.#updates = [];
  }

  /**
   * `getUpdates`: confirms the updates below `offset`, then answers the first `limit` (1–100)
   * queued, waiting up to `timeout` seconds for one when there are none and `res` stays open.
   */
  async poll(params: Record<string, unknown>, res: ServerResponse): Promise<unknown[]> {
    const offset = Number(params.offset ?? 0);
    if (offset > 0) {
      this.#updates = this.#updates.filter((update) => Number(update.update_id) >= offset);
    }
    const limit = Math.min(Math.max(Number(params.limit ?? 100) || 100, 1), 100);
    const timeoutSeconds = Number(params.timeout ?? 0) || 0;
    if (this.#updates.length === 0 && timeoutSeconds > 0 && !this.#closed) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          res.off("close", wake);
          this.#pollers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, timeoutSeconds * 1000);
        res.on("close", wake);
        this.#pollers.add(wake);
      });
    }
    return this.#updates.slice(0, limit);
  }

  /** Ends the pending polls; later ones answer at once. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  #wake(): void {
    for (const wake of [...this.#pollers]) wake();
  }
}
