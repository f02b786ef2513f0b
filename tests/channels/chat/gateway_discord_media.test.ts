/**
 * Discord attachments reach the model: `bub gateway --enable-channel discord` as a real
 * subprocess, the fake Discord sends a MESSAGE_CREATE over its gateway carrying attachments it
 * serves from its fake CDN; the mock model (an OpenAI-compatible provider) receives the image and
 * the voice note as content parts with their bytes, and the content type Discord gave.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { FakeDiscordServer } from "../../../src/testing/fake_discord.ts";
import { mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { base64, oggOpusFile, PNG_BASE64 } from "../../agent/_media_files.ts";
import {
  BIN,
  type Child,
  childEnv,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "../../cli/_spawn.ts";

type Part = Record<string, unknown>;

function userParts(request: MockRequest): Part[] | string {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  return messages.findLast((message) => message.role === "user")!.content as Part[] | string;
}

describe("bub gateway passing Discord attachments to the model", () => {
  let dirs: TempDirs;
  let discord: FakeDiscordServer;
  let model: MockLlmServer;
  let gateway: Child;
  const ADA = { id: "300000000000000001", username: "ada" };

  before(async () => {
    dirs = tempDirs("bub-gateway-discord-media-");
    discord = await FakeDiscordServer.start();
    model = await MockLlmServer.start({ script: () => mockReply.text("Got it.") });
    gateway = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "discord"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: model.url,
        BUB_API_KEY: "sk-gateway",
        BUB_DISCORD_BOT_TOKEN: discord.botToken,
        BUB_DISCORD_PUBLIC_KEY: discord.publicKey,
        BUB_DISCORD_APPLICATION_ID: discord.applicationId,
        BUB_DISCORD_API_BASE: discord.apiBase,
        BUB_DISCORD_ALLOW_USERS: ADA.id,
        BUB_WEBHOOK_PORT: "0",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
      }),
    });
    await gateway.waitFor(/webhooks on http:\/\/127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
    const end = Date.now() + 60_000;
    while (discord.identified === 0 && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  after(async () => {
    if (gateway && gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway.kill());
    await model?.close();
    await discord?.close();
    dirs?.remove();
  });

  async function nextRequest(count: number): Promise<MockRequest> {
    const end = Date.now() + 30_000;
    while (model.requests.length < count) {
      if (Date.now() > end) throw new Error(`No model request: ${gateway.stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return model.requests[count - 1]!;
  }

  test("an image and a voice note arrive as image_url and input_audio parts, fetched from the CDN", async () => {
    const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
    const ogg = oggOpusFile(1);
    const attachments = [
      discord.addAttachment("cat.png", "image/png", png),
      discord.addAttachment("voice-message.ogg", "audio/ogg", ogg),
    ];
    discord.messageCreate(ADA, "what is this?", { attachments });
    const parts = userParts(await nextRequest(1));
    assert.ok(Array.isArray(parts), JSON.stringify(parts));
    const text = String(parts.find((part) => part.type === "text")?.text);
    assert.match(text, /what is this\?/);
    assert.match(text, /voice-message\.ogg/);
    assert.deepEqual(parts.find((part) => part.type === "image_url"), {
      type: "image_url",
      image_url: { url: `data:image/png;base64,${base64(png)}` },
    });
    assert.deepEqual(parts.find((part) => part.type === "input_audio"), {
      type: "input_audio",
      input_audio: { data: base64(ogg), format: "ogg" },
    });
    assert.equal(discord.callsOf("GET /attachments").length, 2);
  });

  test("an attachment over the media limit is not downloaded: the model gets a note", async () => {
    const before = discord.callsOf("GET /attachments").length;
    const big = new Uint8Array(3 * 1024 * 1024).fill(1);
    const attachments = [discord.addAttachment("movie.mp4", "video/mp4", big)];
    discord.messageCreate(ADA, "too big?", { attachments });
    const parts = userParts(await nextRequest(2));
    const text = typeof parts === "string"
      ? parts
      : String(parts.find((part) => part.type === "text")?.text);
    assert.match(text, /movie\.mp4/);
    assert.match(text, /larger than the 2097152 byte media limit/);
    if (Array.isArray(parts)) assert.equal(parts.some((part) => part.type === "video_url"), false);
    assert.equal(discord.callsOf("GET /attachments").length, before);
  });
});
