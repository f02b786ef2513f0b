import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  abortable,
  abortableIterable,
  deadline,
  delay,
  mergeAsyncIterables,
  pooledMap,
  retry,
  RetryError,
} from "../../src/_internal/async.ts";

/** A promise with its resolvers, for stepping sources by hand. */
function deferred<T = void>(): PromiseWithResolvers<T> {
  return Promise.withResolvers<T>();
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const value of iterable) out.push(value);
  return out;
}

describe("delay", () => {
  test("resolves after the given time", async () => {
    const start = Date.now();
    await delay(30);
    assert.ok(Date.now() - start >= 25, `waited ${Date.now() - start}ms`);
  });

  test("rejects with signal.reason when aborted while waiting", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    const waiting = delay(60_000, { signal: controller.signal });
    controller.abort(reason);
    await assert.rejects(waiting, (error) => error === reason);
  });

  test("rejects at once with signal.reason when the signal is already aborted", async () => {
    const reason = { why: "already" };
    await assert.rejects(delay(60_000, { signal: AbortSignal.abort(reason) }), (e) => e === reason);
  });

  test("a non-persistent delay resolves while something else keeps the process alive", async () => {
    let resolved = false;
    const keepAlive = delay(200);
    await delay(1, { persistent: false }).then(() => resolved = true);
    assert.equal(resolved, true);
    await keepAlive;
  });
});

describe("abortable", () => {
  test("resolves with the promise's value when not aborted", async () => {
    const controller = new AbortController();
    assert.equal(await abortable(Promise.resolve(7), controller.signal), 7);
    assert.equal(await abortable(Promise.resolve(8), undefined), 8);
  });

  test("passes the promise's rejection through", async () => {
    const error = new Error("inner");
    await assert.rejects(abortable(Promise.reject(error), new AbortController().signal), error);
  });

  test("rejects with signal.reason as soon as the signal aborts", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled");
    const never = new Promise<number>(() => {});
    const raced = abortable(never, controller.signal);
    controller.abort(reason);
    await assert.rejects(raced, (error) => error === reason);
  });

  test("rejects with signal.reason when the signal is already aborted", async () => {
    const reason = new Error("early");
    await assert.rejects(
      abortable(Promise.resolve(1), AbortSignal.abort(reason)),
      (e) => e === reason,
    );
  });
});

describe("abortableIterable", () => {
  test("yields every value of the source when not aborted", async () => {
    async function* source() {
      yield* [1, 2, 3];
    }
    assert.deepEqual(await collect(abortableIterable(source(), new AbortController().signal)), [
      1,
      2,
      3,
    ]);
    assert.deepEqual(await collect(abortableIterable(source(), undefined)), [1, 2, 3]);
  });

  test("throws signal.reason at once when aborted while the source is blocked, then closes it", async () => {
    const gate = deferred();
    const closed = deferred();
    async function* source() {
      try {
        yield 1;
        await gate.promise;
        yield 2;
      } finally {
        closed.resolve();
      }
    }
    const controller = new AbortController();
    const reason = new Error("stop");
    const seen: number[] = [];
    const run = (async () => {
      for await (const value of abortableIterable(source(), controller.signal)) {
        seen.push(value);
        controller.abort(reason);
      }
    })();
    await assert.rejects(run, (error) => error === reason);
    assert.deepEqual(seen, [1]);
    gate.resolve();
    await closed.promise;
  });

  test("closes the source when the consumer stops early", async () => {
    let closed = false;
    async function* source() {
      try {
        yield* [1, 2, 3];
      } finally {
        closed = true;
      }
    }
    for await (const value of abortableIterable(source(), new AbortController().signal)) {
      assert.equal(value, 1);
      break;
    }
    assert.equal(closed, true);
  });

  test("throws signal.reason without pulling when the signal is already aborted", async () => {
    let pulled = false;
    const source: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          pulled = true;
          return Promise.resolve({ done: false, value: 1 });
        },
      }),
    };
    const reason = new Error("early");
    await assert.rejects(
      collect(abortableIterable(source, AbortSignal.abort(reason))),
      (e) => e === reason,
    );
    assert.equal(pulled, false);
  });
});

describe("deadline", () => {
  test("resolves with the value when the promise settles in time", async () => {
    assert.equal(await deadline(Promise.resolve("ok"), 10_000), "ok");
  });

  test("rejects with a DOMException named TimeoutError when the promise is too slow", async () => {
    await assert.rejects(deadline(new Promise(() => {}), 20), (error: unknown) => {
      assert.ok(error instanceof DOMException);
      assert.equal(error.name, "TimeoutError");
      return true;
    });
  });

  test("rejects with signal.reason when the signal aborts first", async () => {
    const controller = new AbortController();
    const reason = new Error("user");
    const waiting = deadline(new Promise(() => {}), 60_000, { signal: controller.signal });
    controller.abort(reason);
    await assert.rejects(waiting, (error) => error === reason);
  });
});

describe("retry", () => {
  test("returns the first success after transient failures", async () => {
    let calls = 0;
    const value = await retry(() => {
      calls += 1;
      if (calls < 3) throw new Error(`fail ${calls}`);
      return "done";
    }, { minTimeout: 1, maxTimeout: 5 });
    assert.equal(value, "done");
    assert.equal(calls, 3);
  });

  test("throws RetryError after maxAttempts with the last error as cause", async () => {
    let calls = 0;
    const error = await retry(() => {
      calls += 1;
      throw new Error(`fail ${calls}`);
    }, { maxAttempts: 3, minTimeout: 1, maxTimeout: 5 }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof RetryError);
    assert.equal(error.name, "RetryError");
    assert.equal(error.attempts, 3);
    assert.equal(error.message, "Retrying exceeded the maxAttempts (3).");
    assert.equal((error.cause as Error).message, "fail 3");
    assert.equal(calls, 3);
  });

  test("waits with exponential backoff between attempts (jitter 0)", async () => {
    const times: number[] = [];
    await assert.rejects(
      retry(() => {
        times.push(Date.now());
        throw new Error("no");
      }, { maxAttempts: 4, minTimeout: 10, multiplier: 3, jitter: 0 }),
      RetryError,
    );
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    assert.equal(gaps.length, 3);
    [10, 30, 90].forEach((expected, i) => {
      assert.ok(gaps[i]! >= expected - 3, `gap ${i} was ${gaps[i]}ms, expected ~${expected}ms`);
    });
  });

  test("caps each wait at maxTimeout", async () => {
    const times: number[] = [];
    await assert.rejects(
      retry(() => {
        times.push(Date.now());
        throw new Error("no");
      }, { maxAttempts: 3, minTimeout: 10, multiplier: 100, maxTimeout: 40, jitter: 0 }),
      RetryError,
    );
    const second = times[2]! - times[1]!;
    assert.ok(second >= 37, `second wait ${second}ms`);
    assert.ok(second < 900, `second wait ${second}ms is not capped (uncapped would be 1000ms)`);
  });

  test("shortens the wait by jitter times the injected random value", async () => {
    const times: number[] = [];
    let draws = 0;
    await assert.rejects(
      retry(() => {
        times.push(Date.now());
        throw new Error("no");
      }, {
        maxAttempts: 3,
        minTimeout: 400,
        maxTimeout: 400,
        jitter: 1,
        random: () => {
          draws += 1;
          return 0.9;
        },
      }),
      RetryError,
    );
    assert.equal(draws, 2, "one random draw per wait");
    const total = times[2]! - times[0]!;
    assert.ok(total >= 75, `waited ${total}ms in all, expected ~80ms`);
    assert.ok(total < 700, `waited ${total}ms in all; without jitter it would be 800ms`);
  });

  test("rethrows a non-retryable error as is, on any attempt", async () => {
    const fatal = new Error("fatal");
    let calls = 0;
    await assert.rejects(
      retry(() => {
        calls += 1;
        throw fatal;
      }, { maxAttempts: 1, shouldRetry: () => false }),
      (e) => e === fatal,
    );
    const attempts: number[] = [];
    await assert.rejects(
      retry(() => {
        throw new Error(attempts.length < 1 ? "transient" : "fatal");
      }, {
        minTimeout: 1,
        shouldRetry: (error, attempt) => {
          attempts.push(attempt);
          return (error as Error).message === "transient";
        },
      }),
      /fatal/,
    );
    assert.equal(calls, 1);
    assert.deepEqual(attempts, [0, 1]);
  });

  test("stops with signal.reason when aborted during a wait", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    let calls = 0;
    await assert.rejects(
      retry(() => {
        calls += 1;
        setTimeout(() => controller.abort(reason), 5);
        throw new Error("no");
      }, { minTimeout: 60_000, maxTimeout: 60_000, jitter: 0, signal: controller.signal }),
      (e) => e === reason,
    );
    assert.equal(calls, 1);
  });

  test("rejects invalid options with a RangeError", async () => {
    const fn = () => 1;
    await assert.rejects(retry(fn, { maxAttempts: 0 }), RangeError);
    await assert.rejects(retry(fn, { minTimeout: 10, maxTimeout: 5 }), RangeError);
    await assert.rejects(retry(fn, { jitter: 2 }), RangeError);
    await assert.rejects(retry(fn, { jitter: Number.NaN }), RangeError);
  });
});

describe("pooledMap", () => {
  test("yields results in input order even when later items finish first", async () => {
    const waits = [40, 5, 20, 1, 10];
    const results = await collect(pooledMap(3, waits, async (ms) => {
      await delay(ms);
      return ms * 2;
    }));
    assert.deepEqual(results, [80, 10, 40, 2, 20]);
  });

  test("never has more than `limit` calls in flight, and does run them concurrently", async () => {
    let active = 0;
    let peak = 0;
    const items = Array.from({ length: 12 }, (_, i) => i);
    async function* source() {
      yield* items;
    }
    const results = await collect(pooledMap(3, source(), async (i) => {
      active += 1;
      peak = Math.max(peak, active);
      await delay((i * 7) % 5);
      active -= 1;
      return i;
    }));
    assert.deepEqual(results, items);
    assert.equal(peak, 3);
  });

  test("rethrows a failing call", async () => {
    const boom = new Error("boom");
    await assert.rejects(
      collect(pooledMap(2, [1, 2, 3, 4], (i) => {
        if (i === 2) throw boom;
        return i;
      })),
      (e) => e === boom,
    );
  });

  test("rejects a limit below 1 with a RangeError", async () => {
    await assert.rejects(collect(pooledMap(0, [1], (i) => i)), RangeError);
  });
});

describe("mergeAsyncIterables", () => {
  test("yields values from all sources as they arrive and ends when all end", async () => {
    const gate = deferred();
    async function* slow() {
      yield "s1";
      await gate.promise;
      yield "s2";
    }
    async function* fast() {
      yield "f1";
      yield "f2";
      gate.resolve();
    }
    const values = await collect(mergeAsyncIterables(slow(), fast()));
    assert.deepEqual([...values].sort(), ["f1", "f2", "s1", "s2"]);
    assert.ok(values.indexOf("f2") < values.indexOf("s2"), `order was ${values.join(",")}`);
  });

  test("ends at once with no sources", async () => {
    assert.deepEqual(await collect(mergeAsyncIterables()), []);
  });

  test("rethrows the first error and closes the other sources", async () => {
    const gate = deferred();
    const closed = deferred();
    const boom = new Error("boom");
    async function* blocked() {
      try {
        yield 1;
        await gate.promise;
        yield 2;
      } finally {
        closed.resolve();
      }
    }
    async function* failing(): AsyncGenerator<number> {
      await delay(5);
      yield* [];
      throw boom;
    }
    await assert.rejects(collect(mergeAsyncIterables(blocked(), failing())), (e) => e === boom);
    gate.resolve();
    await closed.promise;
  });

  test("closes every source when the consumer stops early", async () => {
    const closed: string[] = [];
    async function* source(name: string) {
      try {
        for (let i = 0;; i++) yield `${name}${i}`;
      } finally {
        closed.push(name);
      }
    }
    for await (const value of mergeAsyncIterables(source("a"), source("b"))) {
      assert.match(value, /^[ab]0$/);
      break;
    }
    await delay(1);
    assert.deepEqual(closed.sort(), ["a", "b"]);
  });
});
