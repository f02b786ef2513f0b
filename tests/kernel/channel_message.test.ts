import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChannelMessage, MediaItem } from "../../src/kernel/channel_message.ts";

describe("ChannelMessage", () => {
  test("ChannelMessage defaults outputChannel to channel and writes channel '$<channel>' and chat_id into context", () => {
    const context: Record<string, unknown> = { channel: "overwritten", user: "ann" };
    const message = new ChannelMessage({
      sessionId: "s",
      channel: "telegram",
      content: "hi",
      chatId: "42",
      context,
    });
    assert.equal(message.outputChannel, "telegram");
    assert.equal(message.context, context, "the caller's context object is mutated in place");
    assert.deepEqual(context, { channel: "$telegram", user: "ann", chat_id: "42" });
    const defaults = new ChannelMessage({
      sessionId: "s",
      channel: "cli",
      content: "",
      outputChannel: "",
    });
    assert.deepEqual(
      [
        defaults.outputChannel,
        defaults.chatId,
        defaults.kind,
        defaults.isActive,
        defaults.media,
        defaults.lifespan,
      ],
      ["cli", "default", "normal", false, [], null],
    );
    assert.equal(
      new ChannelMessage({ sessionId: "s", channel: "a", content: "", outputChannel: "b" })
        .outputChannel,
      "b",
    );
  });

  test("contextStr joins non-underscore context keys as k=v with |", () => {
    const message = new ChannelMessage({
      sessionId: "s",
      channel: "cli",
      content: "hi",
      chatId: "local",
      context: { user: "ann", _secret: "hidden", count: 2 },
    });
    assert.equal(message.contextStr, "user=ann|count=2|channel=$cli|chat_id=local");
  });

  test("fromBatch copies the last message with contents joined by newline and all media", () => {
    const image = new MediaItem({
      type: "image",
      mimeType: "image/png",
      url: "https://example.invalid/a.png",
    });
    const first = new ChannelMessage({
      sessionId: "s",
      channel: "c",
      content: "one",
      media: [image],
    });
    const last = new ChannelMessage({
      sessionId: "s",
      channel: "c",
      content: "two",
      context: { k: "v" },
    });
    const merged = ChannelMessage.fromBatch([first, last]);
    assert.ok(merged instanceof ChannelMessage);
    assert.equal(merged.content, "one\ntwo");
    assert.deepEqual(merged.media, [image]);
    assert.equal(merged.context.k, "v");
    assert.equal(last.content, "two", "the last message is not modified");
    assert.throws(() => ChannelMessage.fromBatch([]), {
      name: "RangeError",
      message: "Batch cannot be empty",
    });
  });

  test("MediaItem.getUrl returns the url, else a data URL of the fetched bytes, else null", async () => {
    assert.equal(
      await new MediaItem({ type: "image", mimeType: "image/png", url: "u" }).getUrl(),
      "u",
    );
    const fetched = new MediaItem({
      type: "audio",
      mimeType: "audio/ogg",
      dataFetcher: () => Promise.resolve(new TextEncoder().encode("hi")),
    });
    assert.equal(await fetched.getUrl(), "data:audio/ogg;base64,aGk=");
    const none = new MediaItem({
      type: "document",
      mimeType: "text/plain",
      dataFetcher: () => Promise.resolve(null),
    });
    assert.equal(await none.getUrl(), null);
    assert.equal(await new MediaItem({ type: "video", mimeType: "video/mp4" }).getUrl(), null);
  });
});
