import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "grammy/types";
import { parseMessage } from "../../../src/channels/telegram/_parse.ts";
import { TelegramChannel } from "../../../src/channels/telegram/telegram_channel.ts";

test("a Telegram photo's media item names its file, so another instance can fetch it", () => {
  const photo = {
    message_id: 5,
    date: 0,
    chat: { id: 7, type: "private" },
    from: { id: 7, is_bot: false, first_name: "A" },
    photo: [
      { file_id: "small", file_unique_id: "s", width: 10, height: 10, file_size: 100 },
      { file_id: "large", file_unique_id: "l", width: 90, height: 90, file_size: 900 },
    ],
  } as unknown as Message;
  const parsed = parseMessage(photo, () => Promise.resolve(null));
  const channel = new TelegramChannel({ handler: () => Promise.resolve(), token: "1:x" });
  const source = channel.mediaSource(parsed.media[0]);
  assert.equal(typeof source?.fileId, "string");
  assert.equal(channel.mediaSource({ type: "image" }), null);
  assert.equal(typeof channel.mediaFetcher(source!), "function");
  assert.equal(channel.mediaFetcher({}), null);
});
