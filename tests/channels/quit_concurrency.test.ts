import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChannelMessage } from "../../src/kernel/channel_message.ts";
import { deferred } from "../_helpers/kernel.ts";
import { channelFixture, openManager } from "./_fixtures.ts";

function message(content: string): ChannelMessage {
  return new ChannelMessage({
    sessionId: "memory:1",
    channel: "memory",
    chatId: "1",
    content,
  });
}

/** Resolves with `promise`, or with "timeout" after `ms` (the timer is always cleared). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe("quit (kernel §8.5)", () => {
  test("two turns of a session that quit each other at the same time both end instead of waiting on each other forever", async () => {
    using fx = channelFixture();
    await using open = await openManager(fx.framework);
    const done = [deferred<void>(), deferred<void>()];
    void open.manager.schedule(message("a")).then(() => done[0]!.resolve());
    void open.manager.schedule(message("b")).then(() => done[1]!.resolve());
    await fx.model.waitForCalls(2);
    const entered = [deferred<void>(), deferred<void>()];
    // Lets the quit calls give up when the test has seen them stuck, so cleanup can finish.
    const escape = deferred<void>();
    for (const index of [0, 1]) {
      fx.model.call(index).releaseWith(async () => {
        const quit = open.manager.quit("memory:1");
        entered[index]!.resolve();
        await Promise.race([quit, escape.promise]);
      });
    }
    await Promise.all(entered.map((d) => d.promise));
    const ended = await within(Promise.all(done.map((d) => d.promise)), 3000);
    escape.resolve();
    await Promise.all(done.map((d) => d.promise));
    assert.notEqual(ended, "timeout", "the two turns are stuck waiting on each other");
    assert.equal(open.manager.sessionSnapshot("memory:1"), null);
  });
});
