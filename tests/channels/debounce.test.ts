import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { DebounceBuffer } from "../../src/channels/_debounce.ts";
import { ChannelManager } from "../../src/channels/manager.ts";
import { ChannelMessage, MediaItem } from "../../src/kernel/channel_message.ts";
import type { Envelope } from "../../src/kernel/envelope.ts";
import { channelFixture, FakeClock } from "./_fixtures.ts";

const timings = { debounceSeconds: 1, maxWaitSeconds: 10, activeTimeWindow: 60 };

function message(
  content: string,
  isActive: boolean,
  extra: Record<string, unknown> = {},
): ChannelMessage {
  return new ChannelMessage({
    sessionId: "tg:1",
    channel: "tg",
    chatId: "1",
    content,
    isActive,
    context: extra,
  });
}

function buffer() {
  const clock = new FakeClock();
  const forwarded: ChannelMessage[] = [];
  const debounce = new DebounceBuffer(
    (m: Envelope) => void forwarded.push(m as ChannelMessage),
    timings,
    clock,
  );
  return { clock, forwarded, debounce };
}

describe("debounce buffer (kernel §8.5, builtin §10.3)", () => {
  test("115: a burst of active messages merges into one: contents joined by newline, last message's metadata", async () => {
    const { clock, forwarded, debounce } = buffer();
    const image = new MediaItem({ type: "image", mimeType: "image/png", url: "http://x/1.png" });
    await debounce.handle(
      new ChannelMessage({
        sessionId: "tg:1",
        channel: "tg",
        chatId: "1",
        content: "hello",
        isActive: true,
        media: [image],
        context: { message_id: 1 },
      }),
    );
    clock.advance(0.6);
    await debounce.handle(message("world", true, { message_id: 2 }));
    clock.advance(0.6);
    assert.equal(forwarded.length, 0, "each active message re-arms the debounce timer");
    clock.advance(0.5);
    assert.equal(forwarded.length, 1);
    const merged = forwarded[0]!;
    assert.equal(merged.content, "hello\nworld");
    assert.equal(merged.context.message_id, 2);
    assert.deepEqual(merged.media, [image]);
    assert.ok(merged instanceof ChannelMessage);
    assert.equal(debounce.size, 0);
  });

  test("116/122: comma-prefixed messages bypass debouncing", async () => {
    const { clock, forwarded, debounce } = buffer();
    await debounce.handle(message("chatty", true));
    await debounce.handle(message(",help", false));
    assert.deepEqual(forwarded.map((m) => m.content), [",help"]);
    assert.equal(debounce.size, 1);
    clock.advance(1);
    assert.deepEqual(forwarded.map((m) => m.content), [",help", "chatty"]);
  });

  test("122: a non-active message with no recent activity is dropped", async () => {
    const { clock, forwarded, debounce } = buffer();
    await debounce.handle(message("overheard", false));
    assert.equal(debounce.size, 0);
    clock.advance(100);
    assert.equal(forwarded.length, 0);
    assert.equal(clock.pending, 0);
  });

  test("a non-active message after the active window has passed is dropped", async () => {
    const { clock, forwarded, debounce } = buffer();
    await debounce.handle(message("hi bub", true));
    clock.advance(1);
    clock.advance(61);
    await debounce.handle(message("later chatter", false));
    clock.advance(20);
    assert.deepEqual(forwarded.map((m) => m.content), ["hi bub"]);
  });

  test("a non-active message inside the active window waits up to maxWaitSeconds", async () => {
    const { clock, forwarded, debounce } = buffer();
    await debounce.handle(message("hi bub", true));
    clock.advance(1);
    await debounce.handle(message("side note", false));
    await debounce.handle(message("another", false));
    clock.advance(9.9);
    assert.equal(forwarded.length, 1);
    clock.advance(0.1);
    assert.deepEqual(forwarded.map((m) => m.content), ["hi bub", "side note\nanother"]);
  });

  test("a non-active message joins a pending active burst", async () => {
    const { clock, forwarded, debounce } = buffer();
    await debounce.handle(message("hi bub", true));
    await debounce.handle(message("aside", false));
    clock.advance(1);
    assert.deepEqual(forwarded.map((m) => m.content), ["hi bub\naside"]);
  });

  test("close drops the buffered batch and cancels the timer", async () => {
    const { clock, forwarded, debounce } = buffer();
    await debounce.handle(message("hi", true));
    assert.equal(debounce.close(), 1);
    assert.equal(clock.pending, 0);
    clock.advance(5);
    assert.equal(forwarded.length, 0);
  });

  test("115: the manager debounces channels that need it and runs one merged turn", async () => {
    using fx = channelFixture({ channels: [{ name: "tg", needsDebounce: true }] });
    const clock = new FakeClock();
    const manager = new ChannelManager(fx.framework, {
      enabledChannels: "tg",
      clock,
      debounceSeconds: 2,
    });
    const stop = new AbortController();
    const running = manager.listenAndRun({ signal: stop.signal });
    const tg = fx.channel("tg");
    await tg.push({ content: "part one", chatId: "5" });
    await tg.push({ content: "part two", chatId: "5" });
    await tg.push({ content: ",status", chatId: "5" });
    await fx.model.waitForCalls(1);
    assert.equal(fx.model.call(0).prompt, ",status", "the command went through at once");
    clock.advance(2);
    await fx.model.waitForCalls(2);
    assert.equal(fx.model.call(1).prompt, "part one\npart two");
    fx.model.call(0).release();
    fx.model.call(1).release();
    await tg.waitForSent(2);
    stop.abort();
    await running;
    assert.equal(fx.model.calls.length, 2);
  });
});
