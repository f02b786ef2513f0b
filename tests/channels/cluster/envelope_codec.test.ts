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
      new MediaItem({
        type: "image",
        mimeType: "image/png",
        dataFetcher: () => Promise.resolve(null),
      }),
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

test("media fetched on demand travel as the channel's reference and fetch through it again", async () => {
  const item = new MediaItem({
    type: "image",
    mimeType: "image/jpeg",
    dataFetcher: () => Promise.resolve(new Uint8Array([0])),
  });
  const refs = new WeakMap<object, Record<string, unknown>>([[item, { fileId: "F1" }]]);
  const channel = {
    mediaSource: (media: unknown) => refs.get(media as object) ?? null,
    mediaFetcher: (source: Record<string, unknown>) => () =>
      Promise.resolve(new TextEncoder().encode(String(source.fileId))),
  };
  const message = new ChannelMessage({
    sessionId: "telegram:7",
    channel: "telegram",
    chatId: "7",
    content: "photo",
    media: [item],
  });
  const body = JSON.parse(JSON.stringify(encodeEnvelope(message, "telegram:7", channel)));
  assert.deepEqual(body.media, [
    { type: "image", mimeType: "image/jpeg", filename: null, url: null, source: { fileId: "F1" } },
  ]);
  const back = decodeEnvelope(body, null, channel);
  assert.equal(await back.media[0]!.getUrl(), `data:image/jpeg;base64,${btoa("F1")}`);
  assert.deepEqual(decodeEnvelope(body).media.map((media) => media.dataFetcher), [null]);
});
