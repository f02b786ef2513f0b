/**
 * Media parts reach the model as the user sent them (issue 33 item 1): against the local mock
 * server, per protocol family, the exact part that reached the wire, or for a family that cannot
 * carry it the exact note in its place. Images, mp3, ogg (a voice note), wav, mp4 and pdf.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import type { ChatContentPart, ChatMessage } from "../../src/agent/model_client.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { mediaFixtures, PNG_BASE64 } from "./_media_files.ts";

const { PDF, IMAGE_PART, OGG_PART, PDF_PART, MEDIA } = mediaFixtures();

const NOTES = {
  mp3: "[audio, 417 bytes, audio/mpeg — this model cannot hear audio]",
  ogg: "[audio, 12 s, audio/ogg — this model cannot hear audio]",
  wav: "[audio, 2.5 s, audio/wav — this model cannot hear audio]",
  mp4: "[video, 24 bytes, video/mp4 — this model cannot watch video]",
};

/** One call of `model` with a user message of text and `parts`; the body the server received. */
async function sentBody(
  model: string,
  parts: ChatContentPart[],
  settings: { clientArgs?: Record<string, unknown> } = {},
): Promise<Record<string, unknown>> {
  await using server = await MockLlmServer.start({ script: [mockReply.text("seen")] });
  const client = new ProviderModelClient({ apiKey: "sk-media", apiBase: server.url, ...settings });
  const messages: ChatMessage[] = [
    { role: "system", content: "be brief" },
    { role: "user", content: [{ type: "text", text: "look" }, ...parts] },
  ];
  let text = "";
  for await (const event of client.stream({ model, messages, maxTokens: 64 })) {
    if (event.type === "text") text += event.delta;
  }
  assert.equal(text, "seen");
  assert.equal(server.requests.length, 1);
  return server.requests[0]!.body as Record<string, unknown>;
}

function chatUserContent(body: Record<string, unknown>): unknown {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  return messages.find((message) => message.role === "user")!.content;
}

describe("chat completions: every media part reaches the wire unchanged", () => {
  const cases: Array<[string, string, Record<string, unknown>?]> = [
    ["OpenAI chat (Bub's direct client)", "openai:gpt-4o"],
    ["an OpenAI-compatible preset (direct client)", "custom:some-model"],
    ["OpenAI chat through the AI SDK (a reasoning model)", "openai:gpt-5"],
    ["an OpenAI-compatible preset through the AI SDK", "custom:some-model", {
      queryParams: { v: "1" },
    }],
  ];
  for (const [name, model, clientArgs] of cases) {
    test(`${name}: image, mp3, ogg, wav, mp4 and pdf parts as sent`, async () => {
      const body = await sentBody(model, MEDIA, clientArgs ? { clientArgs } : {});
      assert.deepEqual(chatUserContent(body), [{ type: "text", text: "look" }, ...MEDIA]);
    });
    test(`${name}: a voice note alone (one part) is sent as a one-part array`, async () => {
      const body = await sentVoiceOnly(model, clientArgs);
      assert.deepEqual(chatUserContent(body), [OGG_PART]);
    });
  }
});

async function sentVoiceOnly(
  model: string,
  clientArgs?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  await using server = await MockLlmServer.start({ script: [mockReply.text("heard")] });
  const client = new ProviderModelClient({
    apiKey: "sk-media",
    apiBase: server.url,
    ...(clientArgs ? { clientArgs } : {}),
  });
  for await (
    const _ of client.stream({ model, messages: [{ role: "user", content: [OGG_PART] }] })
  ) { /* drain */ }
  return server.requests[0]!.body as Record<string, unknown>;
}

describe("OpenAI Responses: images and PDFs as input parts, audio and video as notes", () => {
  test("image → input_image, mp3/ogg/wav/mp4 → their notes, pdf → input_file", async () => {
    const body = await sentBody("openai-responses:gpt-4o", MEDIA);
    const input = body.input as Array<{ role?: string; content?: unknown }>;
    const user = input.find((item) => item.role === "user")!;
    assert.deepEqual(user.content, [
      { type: "input_text", text: "look" },
      { type: "input_image", image_url: IMAGE_PART.image_url.url },
      { type: "input_text", text: NOTES.mp3 },
      { type: "input_text", text: NOTES.ogg },
      { type: "input_text", text: NOTES.wav },
      { type: "input_text", text: NOTES.mp4 },
      { type: "input_file", filename: "report.pdf", file_data: PDF_PART.file.file_data },
    ]);
  });
});

describe("Anthropic: images and PDFs as blocks, audio and video as notes", () => {
  test("image → image block, mp3/ogg/wav/mp4 → their notes, pdf → document block", async () => {
    const body = await sentBody("anthropic:claude-test", MEDIA);
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    const content = messages.find((message) => message.role === "user")!.content as Array<
      Record<string, unknown>
    >;
    const blocks = content.map(({ cache_control: _, ...block }) => block);
    assert.deepEqual(blocks, [
      { type: "text", text: "look" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
      { type: "text", text: NOTES.mp3 },
      { type: "text", text: NOTES.ogg },
      { type: "text", text: NOTES.wav },
      { type: "text", text: NOTES.mp4 },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: PDF },
        title: "report.pdf",
      },
    ]);
  });

  test("a video given by URL is noted with its URL", async () => {
    const body = await sentBody("anthropic:claude-test", [
      { type: "video_url", video_url: { url: "https://media.test/clip.mp4" } },
    ]);
    const messages = body.messages as Array<{ role: string; content: Array<{ text?: string }> }>;
    assert.equal(
      messages.find((message) => message.role === "user")!.content[1]!.text,
      "[video, https://media.test/clip.mp4 — this model cannot watch video]",
    );
  });
});

describe("notes and edge cases", () => {
  test("Responses: a Word file is noted with its name and size; Anthropic takes a text file as a document", async () => {
    const docx = {
      type: "file",
      file: {
        filename: "notes.docx",
        file_data:
          "data:application/vnd.openxmlformats-officedocument.wordprocessingml.document;base64,UEsDBA==",
      },
    };
    const responses = await sentBody("openai-responses:gpt-4o", [docx]);
    const input = responses.input as Array<{ role?: string; content?: Array<{ text?: string }> }>;
    assert.equal(
      input.find((item) => item.role === "user")!.content![1]!.text,
      "[file notes.docx, 4 bytes, application/vnd.openxmlformats-officedocument.wordprocessingml.document" +
        " — this model cannot read this file type]",
    );
    const text = {
      type: "file",
      file: { filename: "a.txt", file_data: `data:text/plain;base64,${btoa("plain words")}` },
    };
    const anthropic = await sentBody("anthropic:claude-test", [text]);
    const messages = anthropic.messages as Array<{ role: string; content: Part[] }>;
    const { cache_control: _, ...block } = messages.find((m) => m.role === "user")!.content[1]!;
    assert.deepEqual(block, {
      type: "document",
      source: { type: "text", media_type: "text/plain", data: "plain words" },
      title: "a.txt",
    });
  });

  test("audio whose headers give no length is noted with its size", async () => {
    const body = await sentBody("anthropic:claude-test", [
      { type: "input_audio", input_audio: { data: btoa("OggS"), format: "ogg" } },
    ]);
    const messages = body.messages as Array<{ role: string; content: Part[] }>;
    assert.equal(
      messages.find((m) => m.role === "user")!.content[1]!.text,
      "[audio, 4 bytes, audio/ogg — this model cannot hear audio]",
    );
  });

  test("through the AI SDK, user text that looks like a part marker stays text", async () => {
    const lookalike = "\u0000bub-part-0\u0000";
    const body = await sentBody("openai:gpt-5", [{ type: "text", text: lookalike }, OGG_PART]);
    assert.deepEqual(chatUserContent(body), [
      { type: "text", text: "look" },
      { type: "text", text: lookalike },
      OGG_PART,
    ]);
  });
});

type Part = Record<string, unknown>;
