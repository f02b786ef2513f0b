import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { InMemorySteeringInbox } from "../../src/channels/steering_inbox.ts";
import { ChannelMessage, MediaItem } from "../../src/kernel/channel_message.ts";

describe("InMemorySteeringInbox (kernel §8.4)", () => {
  test('117: keys by _runtime_thread_id, then session_id, then "default"; draining empties the key', async () => {
    const inbox = new InMemorySteeringInbox();
    await inbox.enqueueMessage("t1", { _runtime_thread_id: "thread", session_id: "s" });
    await inbox.enqueueMessage("s1", { session_id: "s" });
    await inbox.enqueueMessage("t2", { _runtime_thread_id: "thread" });
    await inbox.enqueueMessage("d1", {});
    await inbox.enqueueMessage("d2", { _runtime_thread_id: "", session_id: null });
    assert.equal(inbox.messageCount({ _runtime_thread_id: "thread", session_id: "other" }), 2);
    assert.equal(inbox.messageCount({ session_id: "s" }), 1);
    assert.equal(inbox.messageCount({}), 2);
    assert.deepEqual(await inbox.drainMessages({ _runtime_thread_id: "thread" }), ["t1", "t2"]);
    assert.equal(inbox.messageCount({ _runtime_thread_id: "thread" }), 0);
    assert.deepEqual(await inbox.drainMessages({ _runtime_thread_id: "thread" }), []);
    assert.deepEqual(await inbox.drainMessages({ session_id: "default" }), ["d1", "d2"]);
    assert.deepEqual(await inbox.drainMessages({ session_id: "s" }), ["s1"]);
  });
});

describe("ChannelMessage (builtin §10.1)", () => {
  test('120: the context gains channel "$cli" and chat_id; contextStr omits keys starting with _', () => {
    const context: Record<string, unknown> = {
      thread_id: "cli_session",
      _hidden: 1,
      channel: "old",
    };
    const message = new ChannelMessage({
      sessionId: "s",
      channel: "cli",
      chatId: "local",
      content: "hi",
      context,
    });
    assert.equal(message.context, context);
    assert.equal(message.contextStr, "thread_id=cli_session|channel=$cli|chat_id=local");
    assert.equal(message.outputChannel, "cli");
  });

  test("121: fromBatch joins contents with newlines, concatenates media and copies the rest from the last message", () => {
    const a = new MediaItem({ type: "image", mimeType: "image/png", url: "u1" });
    const b = new MediaItem({ type: "audio", mimeType: "audio/ogg", url: "u2" });
    const first = new ChannelMessage({
      sessionId: "s",
      channel: "tg",
      chatId: "1",
      content: "x",
      media: [a],
    });
    const last = new ChannelMessage({
      sessionId: "s2",
      channel: "tg",
      chatId: "2",
      content: "y",
      media: [b],
      isActive: true,
      kind: "command",
    });
    const merged = ChannelMessage.fromBatch([first, last]);
    assert.equal(merged.content, "x\ny");
    assert.deepEqual(merged.media, [a, b]);
    assert.equal(merged.sessionId, "s2");
    assert.equal(merged.chatId, "2");
    assert.equal(merged.kind, "command");
    assert.equal(merged.isActive, true);
    assert.equal(last.content, "y", "the last message itself is unchanged");
    assert.throws(() => ChannelMessage.fromBatch([]), /Batch cannot be empty/);
  });
});
