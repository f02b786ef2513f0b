/**
 * Replies seen by a fake Bot API: each message a bench sends carries a unique `TAG-…` word that
 * the mock model echoes; the watch scans the fake's `sendMessage` calls for the tags, counts each
 * (a count above 1 is a duplicated reply) and wakes whoever waits for one.
 *
 * @module
 */
import type { FakeTelegramServer } from "../../src/testing/fake_telegram.ts";

/** Watches the fake's `sendMessage` calls: tag → times seen, and waiters per tag. */
export class ReplyWatch {
  /** Tag → how many `sendMessage` calls carried it. */
  readonly seen: Map<string, number> = new Map();
  /** `sendMessage` calls without a tag. */
  untagged: number = 0;
  #waiters = new Map<string, () => void>();
  #next = 0;
  #timer: ReturnType<typeof setInterval>;
  #server: FakeTelegramServer;

  constructor(server: FakeTelegramServer) {
    this.#server = server;
    this.#timer = setInterval(() => this.scan(), 2);
  }

  /** Reads the calls recorded since the last scan (also run every 2 ms). */
  scan(): void {
    const calls = this.#server.calls;
    for (; this.#next < calls.length; this.#next++) {
      const call = calls[this.#next]!;
      if (call.method !== "sendMessage") continue;
      const tag = /TAG-[\w-]+/.exec(String(call.params.text))?.[0];
      if (!tag) {
        this.untagged++;
        continue;
      }
      this.seen.set(tag, (this.seen.get(tag) ?? 0) + 1);
      this.#waiters.get(tag)?.();
      this.#waiters.delete(tag);
    }
  }

  /** Resolves true when `tag` comes back, false after `ms`. */
  wait(tag: string, ms: number): Promise<boolean> {
    if (this.seen.has(tag)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(tag);
        resolve(false);
      }, ms);
      this.#waiters.set(tag, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /** Stops scanning. */
  stop(): void {
    clearInterval(this.#timer);
  }
}
