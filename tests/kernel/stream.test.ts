import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  AsyncStreamEvents,
  type StreamEvent,
  streamOf,
  StreamState,
} from "../../src/kernel/stream.ts";
import { BubError } from "../../src/kernel/errors.ts";

/** An async iterator that logs `next` and `return` calls. */
function loggingIterator(log: string[], events: StreamEvent[]): AsyncIterator<StreamEvent> {
  let index = 0;
  return {
    next() {
      log.push("next");
      const value = events[index++];
      return Promise.resolve(value ? { done: false, value } : { done: true, value: undefined });
    },
    return() {
      log.push("inner return");
      return Promise.resolve({ done: true, value: undefined });
    },
  };
}

describe("AsyncStreamEvents", () => {
  test("AsyncStreamEvents.close() is idempotent, closes the inner iterator, then runs onClose, and later next() reports done", async () => {
    const log: string[] = [];
    const stream = new AsyncStreamEvents(
      loggingIterator(log, [{ kind: "text", data: { delta: "a" } }]),
      {
        onClose: () => void log.push("onClose"),
      },
    );
    await Promise.all([stream.close(), stream.close()]);
    await stream.close();
    assert.deepEqual(log, ["inner return", "onClose"]);
    assert.deepEqual(await stream.next(), { done: true, value: undefined });
    assert.deepEqual(
      log,
      ["inner return", "onClose"],
      "next() after close does not touch the inner iterator",
    );
    assert.equal(stream.closed, true);
  });

  test("AsyncStreamEvents closes itself when the inner iterator finishes or throws", async () => {
    const log: string[] = [];
    const finished = new AsyncStreamEvents(
      loggingIterator(log, [{ kind: "text", data: { delta: "a" } }]),
      {
        onClose: () => void log.push("onClose"),
      },
    );
    const events: StreamEvent[] = [];
    for await (const event of finished) events.push(event);
    assert.deepEqual(events, [{ kind: "text", data: { delta: "a" } }]);
    assert.deepEqual(log, ["next", "next", "onClose"]);
    let closed = 0;
    const boom = new Error("provider dropped");
    async function* failing(): AsyncGenerator<StreamEvent> {
      yield { kind: "text", data: { delta: "x" } };
      throw boom;
    }
    const failed = new AsyncStreamEvents(failing(), { onClose: () => void closed++ });
    await assert.rejects(async () => {
      for await (const _ of failed) { /* consume */ }
    }, (error) => error === boom);
    assert.equal(closed, 1);
    assert.equal(failed.closed, true);
  });

  test("breaking out of iteration closes the inner generator and runs onClose once", async () => {
    const log: string[] = [];
    async function* events(): AsyncGenerator<StreamEvent> {
      try {
        yield { kind: "text", data: { delta: "1" } };
        yield { kind: "text", data: { delta: "2" } };
      } finally {
        log.push("generator finally");
      }
    }
    const stream = new AsyncStreamEvents(events(), { onClose: () => void log.push("onClose") });
    for await (const _ of stream) break;
    await stream.close();
    assert.deepEqual(log, ["generator finally", "onClose"]);
  });

  test("onClose runs even when the inner close throws", async () => {
    let ran = false;
    const inner: AsyncIterator<StreamEvent> = {
      next: () => Promise.resolve({ done: true, value: undefined }),
      return: () => Promise.reject(new Error("close failed")),
    };
    const stream = new AsyncStreamEvents(inner, { onClose: () => void (ran = true) });
    await assert.rejects(stream.close(), /close failed/);
    assert.equal(ran, true);
  });

  test("error and usage are views over the shared StreamState", () => {
    const state = new StreamState();
    const stream = streamOf([{ kind: "usage", data: { tokens: 3 } }], { state });
    assert.equal(stream.state, state);
    state.error = new BubError("provider", "down");
    state.usage = { tokens: 3 };
    assert.equal(stream.error, state.error);
    assert.deepEqual(stream.usage, { tokens: 3 });
  });
});
