import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { abortable, abortableIterable, AbortRace, delay } from "../../src/_internal/async.ts";

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

describe("AbortRace", () => {
  test("passes values and rejections through, one promise after another", async () => {
    const controller = new AbortController();
    using race = new AbortRace(controller.signal);
    assert.equal(await race.race(Promise.resolve(1)), 1);
    const error = new Error("inner");
    await assert.rejects(race.race(Promise.reject(error)), (e) => e === error);
    assert.equal(await race.race(Promise.resolve(2)), 2);
    using none = new AbortRace(undefined);
    assert.equal(await none.race(Promise.resolve(3)), 3);
  });

  test("rejects the pending race with signal.reason as soon as the signal aborts, and later ones at once", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    using race = new AbortRace(controller.signal);
    assert.equal(await race.race(Promise.resolve(1)), 1);
    const pending = race.race(new Promise<number>(() => {}));
    controller.abort(reason);
    await assert.rejects(pending, (e) => e === reason);
    let rejectLater!: (error: unknown) => void;
    const dropped = new Promise<number>((_, reject) => rejectLater = reject);
    await assert.rejects(race.race(dropped), (e) => e === reason);
    rejectLater(new Error("dropped: must not go unhandled"));
  });

  test("adds one abort listener for all its races and removes it when disposed", async () => {
    const controller = new AbortController();
    const signal = controller.signal;
    let added = 0;
    let removed = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed++;
      remove(...args);
    }) as typeof remove;
    {
      using race = new AbortRace(signal);
      for (let i = 0; i < 5; i++) assert.equal(await race.race(Promise.resolve(i)), i);
    }
    assert.deepEqual([added, removed], [1, 1]);
  });
});
