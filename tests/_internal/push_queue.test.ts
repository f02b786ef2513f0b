import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PushQueue } from "../../src/_internal/push_queue.ts";

describe("PushQueue", () => {
  test("yields items pushed before and while draining, in order, then ends after close", async () => {
    const queue = new PushQueue<number>();
    queue.push(1);
    const seen: number[] = [];
    const drained = (async () => {
      for await (const item of queue.drain()) {
        seen.push(item);
        if (item === 1) queue.push(2);
        if (item === 2) {
          queue.push(3);
          queue.close();
        }
      }
    })();
    await drained;
    assert.deepEqual(seen, [1, 2, 3]);
    assert.equal(queue.closed, true);
  });

  test("a consumer waiting on an empty queue wakes on close and stops", async () => {
    const queue = new PushQueue<string>();
    const drained = Array.fromAsync(queue.drain());
    await Promise.resolve();
    queue.close();
    assert.deepEqual(await drained, []);
  });
});
