/**
 * Media on the cloud providers (issue 33 items 1 and 2): against the local mock server, the
 * exact part each family put on the wire, or the note in place of one it cannot carry. Gemini
 * and Vertex AI take images, audio, video and PDFs inline; Bedrock's Converse takes its image,
 * video and document formats as bytes; Azure OpenAI's chat forwards every part unchanged.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import type { ChatContentPart, ChatMessage } from "../../src/agent/model_client.ts";
import type { CloudSettings } from "../../src/agent/providers/cloud_models.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { mediaFixtures, PNG_BASE64 } from "./_media_files.ts";

const { MP3, OGG, WAV, MP4, PDF, MEDIA } = mediaFixtures();

const NOTES = {
  mp3: "[audio, 417 bytes, audio/mpeg — this model cannot hear audio]",
  ogg: "[audio, 12 s, audio/ogg — this model cannot hear audio]",
  wav: "[audio, 2.5 s, audio/wav — this model cannot hear audio]",
};

/** One call of `model` (API base from `base`) with text and `parts`; the body received. */
async function sentBody(
  model: string,
  base: (origin: string) => string,
  parts: ChatContentPart[],
  cloud: CloudSettings = {},
): Promise<Record<string, unknown>> {
  await using server = await MockLlmServer.start({ script: [mockReply.text("seen")] });
  const client = new ProviderModelClient({
    apiKey: "sk-media",
    apiBase: base(`http://127.0.0.1:${server.port}`),
    cloud,
  });
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

function geminiUserParts(body: Record<string, unknown>): unknown {
  const contents = body.contents as Array<{ role: string; parts: unknown }>;
  return contents.find((content) => content.role === "user")!.parts;
}

function bedrockUserContent(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const messages = body.messages as Array<
    { role: string; content: Array<Record<string, unknown>> }
  >;
  return messages.find((message) => message.role === "user")!.content;
}

describe("Gemini and Vertex AI: every kind inline", () => {
  const cases: Array<[string, string, (origin: string) => string]> = [
    ["Gemini", "gemini:gemini-test", (o) => `${o}/v1beta`],
    ["Vertex AI", "vertex:gemini-test", (o) => `${o}/v1/publishers/google`],
  ];
  for (const [name, model, base] of cases) {
    test(`${name}: image, mp3, ogg (a voice note), wav, mp4 and pdf as inlineData with their MIME types`, async () => {
      const body = await sentBody(model, base, MEDIA);
      assert.deepEqual(geminiUserParts(body), [
        { text: "look" },
        { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
        { inlineData: { mimeType: "audio/mpeg", data: MP3 } },
        { inlineData: { mimeType: "audio/ogg", data: OGG } },
        { inlineData: { mimeType: "audio/wav", data: WAV } },
        { inlineData: { mimeType: "video/mp4", data: MP4 } },
        { inlineData: { mimeType: "application/pdf", data: PDF } },
      ]);
    });
  }

  test("Gemini: a file of a type it cannot read becomes a note", async () => {
    const zip = {
      type: "file",
      file: { filename: "a.zip", file_data: "data:application/zip;base64,UEsDBA==" },
    };
    const body = await sentBody("gemini:gemini-test", (o) => `${o}/v1beta`, [zip]);
    assert.deepEqual(geminiUserParts(body), [
      { text: "look" },
      { text: "[file a.zip, 4 bytes, application/zip — this model cannot read this file type]" },
    ]);
  });
});

describe("Amazon Bedrock: its formats as bytes, the rest as notes", () => {
  const region = { bedrockRegion: "us-east-1" };
  test("image → image block, audio → notes, mp4 → video block, pdf → document block", async () => {
    const body = await sentBody("bedrock:amazon.nova-test", (o) => o, MEDIA, region);
    const content = bedrockUserContent(body);
    assert.deepEqual(content[0], { text: "look" });
    assert.deepEqual(content[1], { image: { format: "png", source: { bytes: PNG_BASE64 } } });
    assert.deepEqual(content.slice(2, 5), [
      { text: NOTES.mp3 },
      { text: NOTES.ogg },
      { text: NOTES.wav },
    ]);
    assert.deepEqual(content[5], { video: { format: "mp4", source: { bytes: MP4 } } });
    const document = content[6]!.document as Record<string, unknown>;
    assert.equal(document.format, "pdf");
    assert.deepEqual(document.source, { bytes: PDF });
    assert.equal(content.length, 7);
  });

  test("an image format Converse does not list, and an image given by URL, become notes", async () => {
    const bmp = { type: "image_url", image_url: { url: "data:image/bmp;base64,Qk0=" } };
    const linked = { type: "image_url", image_url: { url: "https://example.com/cat.png" } };
    const body = await sentBody("bedrock:amazon.nova-test", (o) => o, [bmp, linked], region);
    assert.deepEqual(bedrockUserContent(body), [
      { text: "look" },
      { text: "[image, 2 bytes, image/bmp — this model cannot take image/bmp]" },
      {
        text:
          "[image, https://example.com/cat.png — this model takes attachments as data, not links]",
      },
    ]);
  });
});

describe("Azure OpenAI chat: parts unchanged, as chat completions", () => {
  test("image, mp3, ogg, wav, mp4 and pdf reach the deployment as sent", async () => {
    const body = await sentBody(
      "azure:my-deployment",
      (o) => `${o}/openai`,
      MEDIA,
      { azureApiVersion: "2024-10-21" },
    );
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    assert.deepEqual(messages.find((m) => m.role === "user")!.content, [
      { type: "text", text: "look" },
      ...MEDIA,
    ]);
  });
});
