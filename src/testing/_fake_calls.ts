/**
 * Private: the call log of the fake chat platform APIs (Slack, GitHub): every request received,
 * and waiting until enough matching ones arrived.
 *
 * @module
 */
import { createHmac } from "node:crypto";

/**
 * One API request received by a fake.
 *
 * @example
 * ```ts
 * import type { FakeApiCall } from "@bub/core/testing";
 * const call: FakeApiCall = {
 *   method: "chat.postMessage",
 *   params: { channel: "C1", text: "hi" },
 *   authorization: "Bearer xoxb-1",
 * };
 * ```
 */
export interface FakeApiCall {
  /** The API method (Slack `chat.postMessage`) or `VERB /path` (GitHub). */
  readonly method: string;
  /** The request's parameters (query, JSON or form body). */
  readonly params: Record<string, unknown>;
  /** The `Authorization` header. */
  readonly authorization: string;
}

/**
 * The requests received, with a wait for matching ones.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeCallLog } from "@bub/core/testing";
 * const log = new FakeCallLog();
 * const waiting = log.waitFor("auth.test");
 * log.record({ method: "auth.test", params: {}, authorization: "" });
 * assert.equal((await waiting).length, 1);
 * ```
 */
export class FakeCallLog {
  /** Every request, in order. */
  readonly calls: FakeApiCall[] = [];
  #waiters = new Set<() => void>();

  /** Records a call and wakes the waiters. */
  record(call: FakeApiCall): void {
    this.calls.push(call);
    for (const wake of [...this.#waiters]) wake();
  }

  /** The calls of `method`. */
  of(method: string): FakeApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /**
   * Resolves with the calls of `method` matching `where` once there are `count` of them.
   *
   * @throws {Error} after `timeoutMs` (default 20 s), naming what arrived
   */
  waitFor(
    method: string,
    count = 1,
    where: (call: FakeApiCall) => boolean = () => true,
    timeoutMs = 20_000,
  ): Promise<FakeApiCall[]> {
    const matching = () => this.of(method).filter(where);
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = matching();
        if (found.length < count) return;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(
          new Error(
            `Timed out waiting for ${count} ${method} call(s); got: ${
              JSON.stringify(this.calls.map((c) => [c.method, c.params]))
            }`,
          ),
        );
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }
}

/** The hex HMAC-SHA256 of `text` under `secret`. */
export function hmacHex(secret: string, text: string): string {
  return createHmac("sha256", secret).update(text).digest("hex");
}
