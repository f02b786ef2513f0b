import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChannelManager } from "../../src/channels/manager.ts";
import { channelFixture, FakeClock } from "./_fixtures.ts";

describe("shutdown (kernel §8.5)", () => {
  test("a message a debounced channel delivers while it is being stopped arms no timer after shutdown", async () => {
    using fx = channelFixture({ channels: [{ name: "tg", needsDebounce: true }] });
    const clock = new FakeClock();
    const manager = new ChannelManager(fx.framework, { enabledChannels: "tg", clock });
    const tg = fx.channel("tg");
    const stop = tg.stop.bind(tg);
    // Like a long poll whose last batch of updates is still being handled when stop() runs.
    tg.stop = async () => {
      await tg.push({ content: "late", chatId: "9" });
      await stop();
    };
    const done = new AbortController();
    const running = manager.listenAndRun({ signal: done.signal });
    await tg.push({ content: "early", chatId: "9" });
    assert.equal(clock.pending, 1, "the early message waits for its debounce timer");
    done.abort();
    await running;
    assert.equal(tg.calls.stop, 1);
    assert.equal(clock.pending, 0, "no debounce timer is left running after shutdown");
  });
});
