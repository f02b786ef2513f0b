/**
 * A Telegram voice note reaches the model as audio (issue 33 item 1): the fake Bot API serves a
 * real Ogg Opus file, the channel builds the inbound message, the builtin turn sends it to the
 * mock model. A chat-completions provider receives `input_audio` with format `ogg` and the file's
 * bytes; an Anthropic model gets the note with the voice note's length instead of a failed turn.
 * A PDF document reaches a chat-completions provider as a `file` part.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { buildBuiltinPrompt } from "../../../src/builtin/build_prompt.ts";
import { base64, mp3Frame, mp4File, oggOpusFile, pdfFile } from "../../agent/_media_files.ts";
import { startBot } from "./_fixtures.ts";

type Part = Record<string, unknown>;

function userParts(body: Record<string, unknown>): Part[] {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  return messages.findLast((message) => message.role === "user")!.content as Part[];
}

async function voiceMessage(seconds: number) {
  const bot = await startBot();
  const ogg = oggOpusFile(seconds);
  const file = bot.server.addFile(ogg, "voice/file_7.oga");
  bot.server.pushMessage({
    voice: {
      file_id: file.file_id,
      file_unique_id: file.file_unique_id,
      duration: seconds,
      mime_type: "audio/ogg",
      file_size: ogg.byteLength,
    },
  });
  const [message] = await bot.received(1);
  return { bot, ogg, message: message! };
}

describe("Telegram media reach the model", () => {
  test("an OpenAI-compatible provider (OpenRouter preset) receives it as input_audio, format ogg, with the file's bytes", async () => {
    const { bot, ogg, message } = await voiceMessage(4);
    await using _bot = bot;
    await using fx = await turnFixture({
      script: [mockReply.text("I heard you")],
      env: { BUB_MODEL: "openrouter:some/audio-model" },
    });
    const result = await fx.turn(message);
    assert.equal(result.modelOutput, "I heard you");
    const parts = userParts(fx.bodies()[0]!);
    assert.equal(parts[0]!.type, "text");
    assert.match(String(parts[0]!.text), /\[Voice message: 4s\]/);
    assert.deepEqual(parts.slice(1), [
      { type: "input_audio", input_audio: { data: base64(ogg), format: "ogg" } },
    ]);
  });

  test("an Anthropic model gets '[audio, 4 s, audio/ogg — this model cannot hear audio]' and the turn completes", async () => {
    const { bot, message } = await voiceMessage(4);
    await using _bot = bot;
    await using fx = await turnFixture({
      script: [mockReply.text("noted")],
      env: { BUB_MODEL: "anthropic:claude-test" },
    });
    const result = await fx.turn(message);
    assert.equal(result.modelOutput, "noted");
    const parts = userParts(fx.bodies()[0]!);
    assert.deepEqual(parts.slice(1).map(({ cache_control: _, ...part }) => part), [
      { type: "text", text: "[audio, 4 s, audio/ogg — this model cannot hear audio]" },
    ]);
  });

  test("a PDF document reaches a chat-completions provider as a file part with its name and bytes", async () => {
    await using bot = await startBot();
    const pdf = pdfFile();
    const file = bot.server.addFile(pdf, "documents/report.pdf");
    bot.server.pushMessage({
      document: {
        file_id: file.file_id,
        file_unique_id: file.file_unique_id,
        file_name: "report.pdf",
        mime_type: "application/pdf",
        file_size: pdf.byteLength,
      },
      caption: "summarise this",
    });
    const [message] = await bot.received(1);
    await using fx = await turnFixture({ script: [mockReply.text("summary")] });
    await fx.turn(message!);
    assert.deepEqual(userParts(fx.bodies()[0]!).slice(1), [
      {
        type: "file",
        file: { file_data: `data:application/pdf;base64,${base64(pdf)}`, filename: "report.pdf" },
      },
    ]);
  });

  test("an audio file, a video and a video note become input_audio (mp3), video_url and video_url parts with their bytes", async () => {
    await using bot = await startBot();
    const mp3 = mp3Frame();
    const mp4 = mp4File();
    const song = bot.server.addFile(mp3, "music/song.mp3");
    const clip = bot.server.addFile(mp4, "videos/clip.mp4");
    const round = bot.server.addFile(mp4, "video_notes/round.mp4");
    const ids = (file: { file_id: string; file_unique_id: string }) => ({
      file_id: file.file_id,
      file_unique_id: file.file_unique_id,
    });
    bot.server.pushMessage({ audio: { ...ids(song), duration: 1, mime_type: "audio/mpeg" } });
    bot.server.pushMessage({
      video: { ...ids(clip), duration: 2, width: 8, height: 8, mime_type: "video/mp4" },
    });
    bot.server.pushMessage({ video_note: { ...ids(round), duration: 3, length: 8 } });
    const messages = await bot.received(3);
    const parts = [];
    for (const message of messages) {
      const prompt = await buildBuiltinPrompt(message);
      assert.ok(Array.isArray(prompt));
      parts.push(...prompt.slice(1));
    }
    const mp4Url = `data:video/mp4;base64,${base64(mp4)}`;
    assert.deepEqual(parts, [
      { type: "input_audio", input_audio: { data: base64(mp3), format: "mp3" } },
      { type: "video_url", video_url: { url: mp4Url } },
      { type: "video_url", video_url: { url: mp4Url } },
    ]);
  });
});
