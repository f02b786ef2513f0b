/**
 * The builtin `buildPrompt` (builtin spec §2, §10.1.3, §16 items 135–136): the context line, the
 * local `---Date:` line, media parts, and comma commands.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildBuiltinPrompt, localIsoTime } from "../../src/builtin/build_prompt.ts";
import { ChannelMessage, MediaItem } from "../../src/kernel/channel_message.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";

const AUDIO_BYTES = new TextEncoder().encode("ID3-fake-mp3");
const AUDIO_BASE64 = btoa("ID3-fake-mp3");

function message(content: string, media: MediaItem[] = [], context: Record<string, unknown> = {}) {
  return new ChannelMessage({
    sessionId: "telegram:7",
    channel: "telegram",
    chatId: "7",
    content,
    media,
    context,
  });
}

function offsetOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  const abs = Math.abs(minutes);
  return `${minutes >= 0 ? "+" : "-"}${String(Math.trunc(abs / 60)).padStart(2, "0")}:${
    String(abs % 60).padStart(2, "0")
  }`;
}

describe("the prompt text", () => {
  test("the second line is ---Date: <local ISO time with seconds>--- ending with the local UTC offset, after the context line", async () => {
    const now = new Date(2026, 0, 15, 9, 5, 7);
    const prompt = await buildBuiltinPrompt(message("hello"), now);
    assert.equal(typeof prompt, "string");
    const lines = String(prompt).split("\n");
    assert.equal(lines[0], "channel=$telegram|chat_id=7");
    assert.match(lines[1]!, /^---Date: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d---$/);
    assert.equal(lines[1], `---Date: 2026-01-15T09:05:07${offsetOf(now)}---`);
    assert.equal(Date.parse(lines[1]!.slice(9, -3)), now.getTime());
    assert.equal(lines[2], "hello");
    assert.equal(localIsoTime(now).endsWith(offsetOf(now)), true);
  });

  test("a message without context is sent as its content alone", async () => {
    assert.equal(await buildBuiltinPrompt({ content: "plain" }), "plain");
  });

  test("a comma command keeps its content, ignores media and marks the message kind command", async () => {
    const inbound = message(",help", [
      new MediaItem({ type: "image", mimeType: "image/png", url: "https://x.test/a.png" }),
    ]);
    assert.equal(await buildBuiltinPrompt(inbound), ",help");
    assert.equal(inbound.kind, "command");
  });
});

describe("media parts", () => {
  test("images become image_url parts, data-URL audio becomes input_audio with the mapped format, remote audio, unfetchable (oversized) media and remote documents are skipped", async () => {
    let fetched = 0;
    const media = [
      new MediaItem({ type: "image", mimeType: "image/png", url: "https://x.test/cat.png" }),
      new MediaItem({
        type: "audio",
        mimeType: "audio/mpeg",
        dataFetcher: () => Promise.resolve(AUDIO_BYTES),
      }),
      new MediaItem({
        type: "audio",
        mimeType: "audio/x-wav",
        dataFetcher: () => Promise.resolve(AUDIO_BYTES),
      }),
      new MediaItem({ type: "audio", mimeType: "audio/ogg", url: "https://x.test/voice.ogg" }),
      // A channel's fetcher answers null for a file too large to download.
      new MediaItem({
        type: "image",
        mimeType: "image/jpeg",
        dataFetcher: () => {
          fetched++;
          return Promise.resolve(null);
        },
      }),
      new MediaItem({ type: "document", mimeType: "application/pdf", url: "https://x.test/a.pdf" }),
      new MediaItem({ type: "video", mimeType: "video/mp4", url: "https://x.test/v.mp4" }),
    ];
    const prompt = await buildBuiltinPrompt(message("look", media));
    assert.ok(Array.isArray(prompt));
    assert.equal(fetched, 1);
    assert.equal(prompt[0]!.type, "text");
    assert.match(String(prompt[0]!.text), /---Date: .*---\nlook$/);
    assert.deepEqual(prompt.slice(1), [
      { type: "image_url", image_url: { url: "https://x.test/cat.png" } },
      { type: "input_audio", input_audio: { data: AUDIO_BASE64, format: "mp3" } },
      { type: "input_audio", input_audio: { data: AUDIO_BASE64, format: "wav" } },
      { type: "video_url", video_url: { url: "https://x.test/v.mp4" } },
    ]);
  });

  test("a PDF document with data becomes a file part (file_data data URL, filename); other documents stay out", async () => {
    const pdf = new TextEncoder().encode("%PDF-1.4 tiny");
    const prompt = await buildBuiltinPrompt(
      message("read", [
        new MediaItem({
          type: "document",
          mimeType: "application/pdf",
          filename: "a.pdf",
          dataFetcher: () => Promise.resolve(pdf),
        }),
        new MediaItem({
          type: "document",
          mimeType: "application/zip",
          filename: "b.zip",
          dataFetcher: () => Promise.resolve(new Uint8Array([0x50, 0x4b])),
        }),
        new MediaItem({
          type: "audio",
          mimeType: "audio/ogg",
          dataFetcher: () => Promise.resolve(new Uint8Array([0x4f, 0x67, 0x67, 0x53])),
        }),
      ]),
    );
    assert.ok(Array.isArray(prompt));
    assert.deepEqual(prompt.slice(1), [
      {
        type: "file",
        file: {
          file_data: `data:application/pdf;base64,${btoa("%PDF-1.4 tiny")}`,
          filename: "a.pdf",
        },
      },
      { type: "input_audio", input_audio: { data: btoa("OggS"), format: "ogg" } },
    ]);
  });

  test("media-only skips leave a plain text prompt", async () => {
    const prompt = await buildBuiltinPrompt(
      message("hi", [
        new MediaItem({ type: "audio", mimeType: "audio/ogg", url: "https://x.test/v.ogg" }),
      ]),
    );
    assert.equal(typeof prompt, "string");
  });

  test("an item whose fetch brought nothing and says why (unavailable) is named in the text, after the content", async () => {
    const tooLarge = Object.assign(
      new MediaItem({ type: "image", mimeType: "image/png", filename: "huge.png" }),
      { unavailable: "not shown: larger than the 2097152 byte media limit" },
    );
    const image = new MediaItem({
      type: "image",
      mimeType: "image/png",
      url: "https://x.test/a.png",
    });
    const prompt = await buildBuiltinPrompt(message("look", [tooLarge, image]));
    assert.ok(Array.isArray(prompt));
    const text = String((prompt[0] as { text: string }).text);
    assert.ok(
      text.endsWith("look\n[huge.png: not shown: larger than the 2097152 byte media limit]"),
      text,
    );
    assert.equal(prompt.length, 2);
  });

  test("through processInbound the image and audio parts reach the provider while the tape keeps only the text part", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("nice picture")] });
    const inbound = message("what is this?", [
      new MediaItem({ type: "image", mimeType: "image/png", url: "https://x.test/cat.png" }),
      new MediaItem({
        type: "audio",
        mimeType: "audio/mpeg",
        dataFetcher: () => Promise.resolve(AUDIO_BYTES),
      }),
    ]);
    const result = await fx.turn(inbound);
    assert.equal(result.modelOutput, "nice picture");
    const user = (fx.bodies()[0]!.messages as Array<{ role: string; content: unknown }>).find((m) =>
      m.role === "user"
    )!;
    const parts = user.content as Array<Record<string, unknown>>;
    assert.deepEqual(parts.map((p) => p.type), ["text", "image_url", "input_audio"]);
    assert.deepEqual(parts[1]!.image_url, { url: "https://x.test/cat.png" });
    assert.deepEqual(parts[2]!.input_audio, { data: AUDIO_BASE64, format: "mp3" });
    const stored = (await fx.entries("telegram:7")).find((e) => e.kind === "message")!;
    const content = (stored.payload as { content: Array<{ type: string }> }).content;
    assert.deepEqual(content.map((p) => p.type), ["text"]);
  });
});
