/**
 * The hand-off order of a chat channel's messages whose linked attachments download first
 * (GitHub, Linear): a thread's messages reach the channel manager in arrival order even when a
 * later one's downloads finish first; other threads do not wait.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { HandOffOrder } from "../../../src/channels/chat/_inbound.ts";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

test("a thread's hand-offs keep arrival order when a later message's downloads finish first", async () => {
  const order = new HandOffOrder();
  const handed: string[] = [];
  const slow = deferred();
  const first = order.run("thread-1", async () => {
    await slow.promise;
    handed.push("first");
  });
  const second = order.run("thread-1", () => Promise.resolve(handed.push("second")));
  const other = order.run("thread-2", () => Promise.resolve(handed.push("other thread")));
  await other;
  assert.deepEqual(handed, ["other thread"]);
  slow.resolve();
  await Promise.all([first, second]);
  assert.deepEqual(handed, ["other thread", "first", "second"]);
});

test("a failing hand-off does not hold up the next one of its thread", async () => {
  const order = new HandOffOrder();
  const failing = order.run("thread-1", () => Promise.reject(new Error("handler failed")));
  const next = order.run("thread-1", () => Promise.resolve("handed"));
  await assert.rejects(failing, /handler failed/);
  assert.equal(await next, "handed");
});
