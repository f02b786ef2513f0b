import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { admitDecision } from "../../src/kernel/channel.ts";
import { ChannelMessage } from "../../src/kernel/channel_message.ts";
import { ChannelManager } from "../../src/channels/manager.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import {
  admitBy,
  channelFixture,
  contents,
  type GatedCall,
  openManager,
  settle,
} from "./_fixtures.ts";

function message(content: string, chatId: string = "1", context: Record<string, unknown> = {}) {
  return new ChannelMessage({
    sessionId: `memory:${chatId}`,
    channel: "memory",
    chatId,
    content,
    context,
  });
}

describe("turn scheduling (kernel §8.5)", () => {
  test("110/126: steering messages left after a turn become pending follow-up turns, in order", async () => {
    using fx = channelFixture({
      admit: admitBy((_c, running) => running ? admitDecision("steer", "busy") : null),
    });
    await using open = await openManager(fx.framework);
    await open.dispatch(message("first"));
    await fx.model.waitForCalls(1);
    assert.equal(await open.dispatch(message("left-1")), false);
    assert.equal(await open.dispatch(message("left-2")), false);
    fx.model.call(0).release();
    await fx.model.waitForCalls(2);
    assert.equal(fx.model.call(1).prompt, "left-1");
    await settle();
    assert.equal(fx.model.calls.length, 2, "leftovers run one at a time");
    assert.equal(open.manager.sessionSnapshot("memory:1")?.pendingCount, 1);
    assert.equal(fx.framework.getSteeringInbox()?.messageCount({ session_id: "memory:1" }), 0);
    fx.model.call(1).release();
    await fx.model.waitForCalls(3);
    assert.equal(fx.model.call(2).prompt, "left-2");
    fx.model.call(2).release();
    assert.deepEqual(contents(await fx.channel().waitForSent(3)), [
      "reply:first",
      "reply:left-1",
      "reply:left-2",
    ]);
  });

  test("110: leftovers are drained with the turn state's thread key", async () => {
    using fx = channelFixture({
      admit: admitBy((_c, running) => running ? admitDecision("steer") : null),
      hooks: {
        loadState: ({ message, sessionId }) => ({
          session_id: sessionId,
          _runtime_thread_id: (message as ChannelMessage).context.thread_id,
        }),
      },
    });
    await using open = await openManager(fx.framework);
    await open.dispatch(message("first", "1", { thread_id: "t-9" }));
    await fx.model.waitForCalls(1);
    await open.dispatch(message("more", "1", { thread_id: "t-9" }));
    assert.equal(fx.framework.getSteeringInbox()?.messageCount({ _runtime_thread_id: "t-9" }), 1);
    fx.model.call(0).release();
    await fx.model.waitForCalls(2);
    assert.equal(fx.model.call(1).prompt, "more");
    fx.model.call(1).release();
    await fx.channel().waitForSent(2);
  });

  test("111/127: quit cancels the session's other tasks and clears its pending queue, but not the calling task", async () => {
    using fx = channelFixture({
      admit: admitBy((c) => c === "queued" ? admitDecision("follow_up") : null),
    });
    await using open = await openManager(fx.framework);
    await open.dispatch(message("caller"));
    await open.dispatch(message("other"));
    await open.dispatch(message("elsewhere", "2"));
    await fx.model.waitForCalls(3);
    assert.equal(await open.dispatch(message("queued")), false);
    assert.equal(open.manager.sessionSnapshot("memory:1")?.pendingCount, 1);
    const [caller, other, elsewhere] = ["caller", "other", "elsewhere"].map((p) =>
      fx.model.find(p)
    ) as [
      GatedCall,
      GatedCall,
      GatedCall,
    ];
    caller.releaseWith(() => fx.framework.quitViaChannelRouter("memory:1"), "caller done");
    const sent = await fx.channel().waitForSent(1, { signal: AbortSignal.timeout(10_000) });
    assert.deepEqual(contents(sent), ["caller done"]);
    assert.equal(other.signal?.aborted, true, "the other task of the session was cancelled");
    assert.equal(caller.signal?.aborted, false, "the calling task survived");
    assert.equal(elsewhere.signal?.aborted, false, "other sessions are untouched");
    await settle();
    assert.equal(fx.model.calls.length, 3, "the pending message was cleared");
    assert.equal(open.manager.sessionSnapshot("memory:1"), null);
    elsewhere.release();
    assert.deepEqual(contents(await fx.channel().waitForSent(2)), [
      "caller done",
      "reply:elsewhere",
    ]);
  });

  test("quit of an unknown session cancels nothing and says so", async () => {
    using fx = channelFixture();
    await using logs = await captureLogs();
    await using open = await openManager(fx.framework);
    await open.manager.quit("nobody");
    assert.ok(logs.messages().some((line) => line.includes("session_id=nobody cancelled 0 tasks")));
  });

  test("112: shutdown cancels every in-flight task and stops the enabled channels", async () => {
    using fx = channelFixture({ channels: [{ name: "off", enabled: false }] });
    const manager = new ChannelManager(fx.framework, { enabledChannels: "all" });
    const running = manager.listenAndRun();
    const channel = fx.channel();
    await channel.push({ content: "a", chatId: "1" });
    await channel.push({ content: "b", chatId: "2" });
    await fx.model.waitForCalls(2);
    assert.equal(fx.framework.channelRouter, manager);
    assert.ok(fx.framework.getSteeringInbox(), "the loop runs inside framework.running()");
    channel.requestStop();
    await running;
    assert.deepEqual(fx.model.calls.map((call) => call.signal?.aborted), [true, true]);
    assert.deepEqual(channel.calls, { start: 1, stop: 1 });
    assert.deepEqual(
      fx.channel("off").calls,
      { start: 0, stop: 0 },
      "a disabled channel is neither started nor stopped",
    );
    assert.equal(fx.framework.channelRouter, null, "the router is unbound");
    assert.equal(fx.framework.getSteeringInbox(), null, "the running scope is closed");
    assert.deepEqual(channel.sent, [], "cancelled turns send nothing");
    assert.equal(manager.sessionSnapshot("memory:1"), null);
  });

  test("listenAndRun processes messages from a channel and stops when its signal aborts", async () => {
    using fx = channelFixture();
    const manager = new ChannelManager(fx.framework, { enabledChannels: ["memory"] });
    const stop = new AbortController();
    const running = manager.listenAndRun({ signal: stop.signal });
    const channel = fx.channel();
    const pushed = await channel.push({ content: "hello", chatId: "42" });
    await fx.model.waitForCalls(1);
    assert.equal(fx.model.call(0).sessionId, "memory:42");
    assert.equal(pushed.sessionId, "memory:42");
    fx.model.call(0).release();
    const [reply] = await channel.waitForSent(1);
    assert.equal(reply?.content, "reply:hello");
    assert.equal(reply?.chatId, "42");
    stop.abort();
    await running;
    assert.equal(channel.calls.stop, 1);
    assert.equal(fx.framework.channelRouter, null);
  });

  test("listenAndRun rethrows a channel start failure after unbinding and shutting down", async () => {
    using fx = channelFixture({ channels: [{ name: "second" }] });
    const manager = new ChannelManager(fx.framework, { enabledChannels: "all" });
    fx.channel("second").start = () => Promise.reject(new Error("cannot connect"));
    await assert.rejects(manager.listenAndRun(), /cannot connect/);
    assert.equal(fx.channel().calls.start, 1);
    assert.equal(fx.channel().calls.stop, 1);
    assert.equal(fx.framework.channelRouter, null);
    assert.equal(fx.framework.getSteeringInbox(), null);
  });

  test("messages from unknown channels are ignored with a warning", async () => {
    using fx = channelFixture();
    await using logs = await captureLogs();
    const manager = new ChannelManager(fx.framework);
    await manager.onReceive({ channel: "ghost", sessionId: "g:1", content: "boo" });
    assert.ok(logs.warnings().some((line) => line.includes("unknown channel ghost")));
  });

  test("with streamOutput the turn's events pass through the channel's streamEvents", async () => {
    using fx = channelFixture();
    const manager = new ChannelManager(fx.framework, {
      enabledChannels: "memory",
      streamOutput: true,
    });
    const stop = new AbortController();
    const running = manager.listenAndRun({ signal: stop.signal });
    const channel = fx.channel();
    await channel.push({ content: "stream me", chatId: "1" });
    await fx.model.waitForCalls(1);
    fx.model.call(0).release("streamed reply");
    const [reply] = await channel.waitForSent(1);
    assert.equal(reply?.content, "streamed reply");
    assert.equal(channel.streams.length, 1);
    assert.deepEqual(channel.streams[0]?.events, [{
      kind: "text",
      data: { delta: "streamed reply" },
    }]);
    stop.abort();
    await running;
  });
});
