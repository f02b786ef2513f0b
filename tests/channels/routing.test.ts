import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { admitDecision } from "../../src/kernel/channel.ts";
import { ChannelMessage } from "../../src/kernel/channel_message.ts";
import type { StreamEvent } from "../../src/kernel/stream.ts";
import { ChannelManager } from "../../src/channels/manager.ts";
import { channelFixture } from "./_fixtures.ts";

function fixture() {
  return channelFixture({
    channels: [{ name: "other", admit: () => admitDecision("steer", "from other") }],
    admit: () => admitDecision("drop", "from memory"),
  });
}

async function* events(): AsyncGenerator<StreamEvent> {
  yield { kind: "text", data: { delta: "a" } };
  yield { kind: "text", data: { delta: "b" } };
}

const idle = {
  sessionId: "s",
  isRunning: false,
  runningCount: 0,
  pendingCount: 0,
  steeringCount: 0,
};

describe("outbound routing (kernel §8.5, builtin §10.3)", () => {
  test("113/124: dispatchOutput routes by outputChannel, falling back to channel", async () => {
    using fx = fixture();
    const manager = new ChannelManager(fx.framework);
    assert.equal(
      await manager.dispatchOutput({ channel: "memory", outputChannel: "other", content: "x" }),
      true,
    );
    assert.equal(await manager.dispatchOutput({ channel: "memory", content: "y" }), true);
    assert.equal(
      await manager.dispatchOutput({ channel: "memory", output_channel: "other", content: "z" }),
      true,
    );
    assert.deepEqual(fx.channel("other").sent.map((m) => m.content), ["x", "z"]);
    assert.deepEqual(fx.channel().sent.map((m) => m.content), ["y"]);
  });

  test('113/124: dispatchOutput returns false for unknown, absent and "null" targets', async () => {
    using fx = fixture();
    const manager = new ChannelManager(fx.framework);
    assert.equal(
      await manager.dispatchOutput({ channel: "memory", outputChannel: "null", content: "x" }),
      false,
    );
    assert.equal(await manager.dispatchOutput({ channel: "nowhere", content: "x" }), false);
    assert.equal(await manager.dispatchOutput({ content: "x" }), false);
    assert.equal(
      await manager.dispatchOutput({ channel: "memory", outputChannel: null, content: "x" }),
      false,
    );
    assert.deepEqual(fx.channel().sent, []);
  });

  test("124: dispatchOutput preserves kind and context and fills defaults", async () => {
    using fx = fixture();
    const manager = new ChannelManager(fx.framework);
    const context = { thread_id: "t1" };
    await manager.dispatchOutput({
      channel: "memory",
      content: "oops",
      kind: "error",
      context,
      chatId: "9",
    });
    await manager.dispatchOutput({ channel: "other", content: "plain" });
    const [sent] = fx.channel().sent;
    assert.ok(sent instanceof ChannelMessage);
    assert.equal(sent.kind, "error");
    assert.equal(sent.sessionId, "memory:default");
    assert.equal(sent.chatId, "9");
    assert.equal(sent.context, context, "the context object is shared");
    assert.deepEqual(context, { thread_id: "t1", channel: "$memory", chat_id: "9" });
    const [plain] = fx.channel("other").sent;
    assert.equal(plain?.kind, "normal");
    assert.equal(plain?.chatId, "default");
    assert.equal(plain?.sessionId, "other:default");
    const routed = new ChannelMessage({
      sessionId: "s1",
      channel: "memory",
      content: "c",
      outputChannel: "other",
    });
    await manager.dispatchOutput(routed);
    assert.equal(fx.channel("other").sent[1]?.sessionId, "s1");
    assert.equal(fx.channel("other").sent[1]?.channel, "other");
  });

  test("wrapStream uses the target channel's streamEvents, or returns the stream unchanged", async () => {
    using fx = fixture();
    const manager = new ChannelManager(fx.framework);
    const unknown = events();
    assert.equal(manager.wrapStream({ channel: "nowhere" }, unknown), unknown);
    const seen: StreamEvent[] = [];
    for await (
      const event of manager.wrapStream({ channel: "memory", outputChannel: "other" }, events())
    ) {
      seen.push(event);
    }
    assert.equal(seen.length, 2);
    assert.equal(fx.channel("other").streams.length, 1);
    assert.deepEqual(fx.channel("other").streams[0]?.events, seen);
    assert.equal(fx.channel().streams.length, 0);
  });

  test("admitChannelMessage asks the message's channel, not its output channel", async () => {
    using fx = fixture();
    const manager = new ChannelManager(fx.framework);
    const message = { channel: "memory", outputChannel: "other", content: "x" };
    assert.deepEqual(await manager.admitChannelMessage({ sessionId: "s", message, turn: idle }), {
      action: "drop",
      reason: "from memory",
    });
    const viaOther = { channel: "other", content: "x" };
    assert.equal(
      (await manager.admitChannelMessage({ sessionId: "s", message: viaOther, turn: idle }))
        ?.action,
      "steer",
    );
    assert.equal(
      await manager.admitChannelMessage({ sessionId: "s", message: { channel: "x" }, turn: idle }),
      null,
    );
    assert.equal(
      await manager.admitChannelMessage({ sessionId: "s", message: {}, turn: idle }),
      null,
    );
  });
});
