import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LinkedSignal } from "../../src/_internal/linked_signal.ts";

/** A controller whose signal counts the abort listeners currently added to it. */
function countedController(): { controller: AbortController; listeners: () => number } {
  const controller = new AbortController();
  const signal = controller.signal;
  const live = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: EventListener, options?: unknown) => {
    if (type === "abort") live.add(listener);
    add(type, listener, options as AddEventListenerOptions);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, listener: EventListener, options?: unknown) => {
    if (type === "abort") live.delete(listener);
    remove(type, listener, options as EventListenerOptions);
  }) as typeof signal.removeEventListener;
  return { controller, listeners: () => live.size };
}

describe("LinkedSignal", () => {
  test("aborts with the reason of whichever source aborts", () => {
    const first = new AbortController();
    const second = new AbortController();
    using linked = new LinkedSignal([first.signal, undefined, second.signal]);
    assert.equal(linked.signal.aborted, false);
    const reason = new Error("second");
    second.abort(reason);
    assert.equal(linked.signal.aborted, true);
    assert.equal(linked.signal.reason, reason);
    first.abort(new Error("first"));
    assert.equal(linked.signal.reason, reason, "the first abort wins");
  });

  test("is aborted at once by a source that is already aborted", () => {
    const reason = new Error("early");
    using linked = new LinkedSignal([new AbortController().signal, AbortSignal.abort(reason)]);
    assert.equal(linked.signal.aborted, true);
    assert.equal(linked.signal.reason, reason);
  });

  test("removes its listener from every source when disposed, and no longer follows them", () => {
    const a = countedController();
    const b = countedController();
    const linked = new LinkedSignal([a.controller.signal, b.controller.signal]);
    assert.equal(a.listeners() + b.listeners(), 2);
    linked[Symbol.dispose]();
    assert.equal(a.listeners() + b.listeners(), 0);
    a.controller.abort(new Error("late"));
    assert.equal(linked.signal.aborted, false);
  });

  test("abort() aborts it with the given reason and unlinks it from the sources", () => {
    const a = countedController();
    using linked = new LinkedSignal([a.controller.signal]);
    const reason = new Error("own");
    linked.abort(reason);
    assert.equal(linked.signal.reason, reason);
    assert.equal(a.listeners(), 0);
  });

  test("a source that aborts unlinks the others", () => {
    const a = countedController();
    const b = countedController();
    using _linked = new LinkedSignal([a.controller.signal, b.controller.signal]);
    a.controller.abort(new Error("a"));
    assert.equal(b.listeners(), 0);
  });
});
