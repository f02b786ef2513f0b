import assert from "node:assert/strict";
import { test } from "node:test";
import {
  decodeEnvelope,
  dedupeKeyOf,
  encodeEnvelope,
} from "../../../src/channels/cluster/_envelope_codec.ts";
import { ChannelMessage, MediaItem } from "../../../src/kernel/channel_message.ts";
import { BubError } from "../../../src/kernel/errors.ts";

test("a channel message survives the inbox as JSON: fields, context and URL media", () => {
  const message = new ChannelMessage({
    sessionId: "telegram:7",
    channel: "telegram",
    chatId: "7",
    content: JSON.stringify({ message: "hi", message_id: 42 }),
    isActive: true,
    context: { thread_id: "t1" },
    media: [
      new MediaItem({ type: "image", mimeType: "image/png", url: "https://x/a.png" }),
      new MediaItem({ type: "image", mimeType: "image/png", dataFetcher: async () => null }),
    ],
    outputChannel: "null",
  });
  const body = JSON.parse(JSON.stringify(encodeEnvelope(message, "telegram:7")));
  assert.equal(dedupeKeyOf(body), "telegram:7:42");
  const back = decodeEnvelope(body);
  assert.ok(back instanceof ChannelMessage);
  assert.equal(back.content, message.content);
  assert.equal(back.chatId, "7");
  assert.equal(back.isActive, true);
  assert.equal(back.outputChannel, "null");
  assert.equal(back.context.thread_id, "t1");
  assert.deepEqual(back.media.map((item) => item.url), ["https://x/a.png"]);
});

test("a message without a channel id has no dedupe key; a plain text one neither", () => {
  const body = encodeEnvelope({ channel: "web", chatId: "c", content: "plain" }, "web:c");
  assert.equal(dedupeKeyOf(body), undefined);
  const withId = encodeEnvelope(
    { channel: "web", chatId: "c", content: "x", context: { message_id: "m9" } },
    "web:c",
  );
  assert.equal(dedupeKeyOf(withId), "web:c:m9");
});

test("bad input is a BubError: no channel to enqueue, a row without session or channel", () => {
  assert.throws(
    () => encodeEnvelope({ content: "x" }, "s"),
    (error) => BubError.isInstance(error) && /without a channel/.test(error.message),
  );
  assert.throws(
    () => decodeEnvelope({ content: "x" }),
    (error) => BubError.isInstance(error) && /no sessionId or channel/.test(error.message),
  );
});
