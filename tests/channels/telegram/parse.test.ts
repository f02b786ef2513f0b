import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Message } from "grammy/types";
import { extractLinks, parseMessage } from "../../../src/channels/telegram/_parse.ts";

const from = { id: 5, is_bot: false, first_name: "Eve" };
const chat = { id: 5, type: "private" as const, first_name: "Eve" };

function msg(fields: Record<string, unknown>): Message {
  return { message_id: 1, date: 1700000000, chat, from, ...fields } as unknown as Message;
}

const noDownload = () => Promise.resolve(null);

function contentOf(fields: Record<string, unknown>): string {
  return parseMessage(msg(fields), noDownload).content;
}

describe("Telegram message parsing", () => {
  test("placeholders for photo, audio, sticker, video, voice, document, video note and unsupported types", () => {
    assert.equal(contentOf({ photo: [{ file_id: "p", width: 1, height: 1 }] }), "[Photo message]");
    assert.equal(
      contentOf({ photo: [{ file_id: "p" }], caption: "cat" }),
      "[Photo message] Caption: cat",
    );
    assert.equal(
      contentOf({ audio: { file_id: "a", duration: 9, title: "T", performer: "P" } }),
      "[Audio: P - T (9s)]",
    );
    assert.equal(contentOf({ audio: { file_id: "a", duration: 9 } }), "[Audio: Unknown (9s)]");
    assert.equal(
      contentOf({ sticker: { file_id: "s", emoji: "😀", set_name: "Pack" } }),
      "[Sticker: 😀 from Pack]",
    );
    assert.equal(contentOf({ sticker: { file_id: "s", set_name: "Pack" } }), "[Sticker from Pack]");
    assert.equal(contentOf({ video: { file_id: "v", duration: 12 } }), "[Video: 12s]");
    assert.equal(
      contentOf({ video: { file_id: "v", duration: 12 }, caption: "fun" }),
      "[Video: 12s] Caption: fun",
    );
    assert.equal(contentOf({ voice: { file_id: "o", duration: 4 } }), "[Voice message: 4s]");
    assert.equal(
      contentOf({ document: { file_id: "d" } }),
      "[Document: unknown (application/octet-stream)]",
    );
    assert.equal(
      contentOf({
        document: { file_id: "d", file_name: "a.pdf", mime_type: "application/pdf" },
        caption: "read",
      }),
      "[Document: a.pdf (application/pdf)] Caption: read",
    );
    assert.equal(contentOf({ video_note: { file_id: "n", duration: 7 } }), "[Video note: 7s]");
    assert.equal(
      contentOf({ location: { latitude: 1, longitude: 2 } }),
      "[Unsupported message type: unknown]",
    );
  });

  test("media items get the type and default MIME type of their message type", () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ photo: [{ file_id: "p" }] }, "image", "image/jpeg"],
      [{ sticker: { file_id: "s" } }, "image", "image/webp"],
      [{ sticker: { file_id: "s", is_animated: true } }, "image", "video/webm"],
      [{ audio: { file_id: "a" } }, "audio", "audio/mpeg"],
      [{ voice: { file_id: "o" } }, "audio", "audio/ogg"],
      [{ video: { file_id: "v" } }, "video", "video/mp4"],
      [{ video_note: { file_id: "n" } }, "video", "video/mp4"],
      [{ document: { file_id: "d" } }, "document", "application/octet-stream"],
      [{ voice: { file_id: "o", mime_type: "audio/mpeg" } }, "audio", "audio/mpeg"],
    ];
    for (const [fields, type, mime] of cases) {
      const { media, metadata } = parseMessage(msg(fields), noDownload);
      assert.equal(media.length, 1, JSON.stringify(fields));
      assert.equal(media[0]?.type, type);
      assert.equal(media[0]?.mimeType, mime);
      assert.equal((metadata.media as Record<string, unknown>).mime_type, mime);
    }
  });

  test("metadata drops nulls and keeps sender fields; a text message has no media", () => {
    const parsed = parseMessage(msg({ text: "hi" }), noDownload);
    assert.deepEqual(parsed.metadata, {
      message_id: 1,
      type: "text",
      full_name: "Eve",
      sender_id: "5",
      sender_is_bot: false,
      date: 1700000000,
    });
    assert.deepEqual(parsed.media, []);
  });

  test("link extraction returns unique URLs of text_link and url entities of the text, else of the caption", () => {
    const text = msg({
      text: "go https://x.io now https://x.io",
      entities: [
        { type: "bold", offset: 0, length: 2 },
        { type: "url", offset: 3, length: 12 },
        { type: "url", offset: 20, length: 12 },
        { type: "text_link", offset: 0, length: 2, url: "https://y.io/" },
      ],
    });
    assert.deepEqual(extractLinks(text), ["https://x.io", "https://y.io/"]);
    const caption = msg({
      photo: [{ file_id: "p" }],
      caption: "pic",
      caption_entities: [{ type: "text_link", offset: 0, length: 3, url: "https://z.io" }],
    });
    assert.deepEqual(extractLinks(caption), ["https://z.io"]);
    assert.equal(extractLinks(msg({ text: "no links" })), null);
  });
});
