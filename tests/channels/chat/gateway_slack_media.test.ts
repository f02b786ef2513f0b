/**
 * Slack files reach the model: `bub gateway --enable-channel slack` as a real subprocess, the
 * fake Slack delivers a signed mention carrying files whose private URLs it serves only with the
 * bot token; the mock model (an OpenAI-compatible provider) receives an image, an audio file and
 * a PDF as content parts with the files' bytes. A file over the media limit becomes a note.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";
import { mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { base64, mp3Frame, pdfFile, PNG_BASE64 } from "../../agent/_media_files.ts";
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

describe("bub gateway passing Slack files to the model", () => {
  let dirs: TempDirs;
  let slack: FakeSlackServer;
  let model: MockLlmServer;
  let gateway: Child;
  let webhook: string;
  const ALLOWED = "UADA";

  before(async () => {
    dirs = tempDirs("bub-gateway-slack-media-");
    slack = await FakeSlackServer.start();
    model = await MockLlmServer.start({ script: () => mockReply.text("Got it.") });
    gateway = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "slack"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: model.url,
        BUB_API_KEY: "sk-gateway",
        BUB_SLACK_BOT_TOKEN: slack.botToken,
        BUB_SLACK_SIGNING_SECRET: slack.signingSecret,
        BUB_SLACK_API_BASE: slack.apiBase,
        BUB_SLACK_ALLOW_USERS: ALLOWED,
        BUB_WEBHOOK_PORT: "0",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
      }),
    });
    await gateway.waitFor(/webhooks on http:\/\/127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
    const base = /webhooks on (http:\/\/127\.0\.0\.1:\d+)/.exec(gateway.stdout)![1];
    webhook = `${base}/webhooks/slack`;
  });

  after(async () => {
    if (gateway && gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway.kill());
    await model?.close();
    await slack?.close();
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

  test("an image, an audio file and a PDF arrive as image_url, input_audio and file parts, fetched with the bot token", async () => {
    const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
    const mp3 = mp3Frame();
    const pdf = pdfFile();
    const files = [
      slack.addFile("cat.png", "image/png", png),
      slack.addFile("memo.mp3", "audio/mpeg", mp3),
      slack.addFile("report.pdf", "application/pdf", pdf),
    ];
    const event = slack.messageEvent(ALLOWED, `<@${slack.botUserId}> look at these`, { files });
    assert.equal((await slack.deliver(webhook, event)).status, 200);
    const parts = userParts(await nextRequest(1));
    assert.ok(Array.isArray(parts), JSON.stringify(parts));
    const text = String(parts.find((part) => part.type === "text")?.text);
    assert.match(text, /look at these/);
    assert.match(text, /cat\.png/);
    assert.deepEqual(parts.find((part) => part.type === "image_url"), {
      type: "image_url",
      image_url: { url: `data:image/png;base64,${base64(png)}` },
    });
    assert.deepEqual(parts.find((part) => part.type === "input_audio"), {
      type: "input_audio",
      input_audio: { data: base64(mp3), format: "mp3" },
    });
    const file = parts.find((part) => part.type === "file")?.file as Record<string, string>;
    assert.equal(file.filename, "report.pdf");
    assert.equal(file.file_data, `data:application/pdf;base64,${base64(pdf)}`);
    // Each private URL was fetched with the bot token.
    const downloads = slack.callsOf("files-pri");
    assert.equal(downloads.length, 3);
    for (const call of downloads) assert.equal(call.authorization, `Bearer ${slack.botToken}`);
  });

  test("a file over the media limit is not downloaded: the model gets a note instead of the part", async () => {
    const before = slack.callsOf("files-pri").length;
    const big = new Uint8Array(3 * 1024 * 1024).fill(7);
    const files = [slack.addFile("huge.pdf", "application/pdf", big)];
    const event = slack.messageEvent(ALLOWED, `<@${slack.botUserId}> too big?`, { files });
    assert.equal((await slack.deliver(webhook, event)).status, 200);
    const parts = userParts(await nextRequest(2));
    const text = typeof parts === "string"
      ? parts
      : String(parts.find((part) => part.type === "text")?.text);
    assert.match(text, /huge\.pdf/);
    assert.match(text, /larger than the 2097152 byte media limit/);
    if (Array.isArray(parts)) assert.equal(parts.some((part) => part.type === "file"), false);
    assert.equal(slack.callsOf("files-pri").length, before);
  });

  test("a file URL on another host is not fetched: the bot token never leaves Slack's hosts", async () => {
    const seen: string[] = [];
    const other = createServer((req, res) => {
      seen.push(String(req.headers.authorization ?? ""));
      res.writeHead(200, { "content-type": "image/png" }).end("stolen");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.2", resolve));
    try {
      const { port } = other.address() as { port: number };
      const file = {
        ...slack.addFile("bait.png", "image/png", new Uint8Array([1])),
        url_private: `http://127.0.0.2:${port}/files-pri/T0001-F1/bait.png`,
      };
      const event = slack.messageEvent(ALLOWED, `<@${slack.botUserId}> open this`, {
        files: [file],
      });
      assert.equal((await slack.deliver(webhook, event)).status, 200);
      const parts = userParts(await nextRequest(3));
      assert.equal(Array.isArray(parts) && parts.some((part) => part.type === "image_url"), false);
      assert.deepEqual(seen, []);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
