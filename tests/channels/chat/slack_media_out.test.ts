/**
 * Media out on Slack: an outbound message carrying media items is posted with its files through
 * Slack's external upload (files.getUploadURLExternal, the upload, files.completeUploadExternal)
 * into the conversation's thread; the fake Slack receives the file's bytes. A file too large to
 * send is named in a note and an http(s) media item posted as a link, never dropped silently.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChatChannel } from "../../../src/channels/chat/chat_channel.ts";
import { WebhookServer } from "../../../src/channels/chat/webhook_server.ts";
import { ChannelMessage, MediaItem } from "../../../src/kernel/channel_message.ts";
import { FakeSlackServer } from "../../../src/testing/fake_slack.ts";
import { pdfFile } from "../../agent/_media_files.ts";

describe("the slack channel posting media", () => {
  let slack: FakeSlackServer;
  let channel: ChatChannel;

  before(async () => {
    slack = await FakeSlackServer.start();
    channel = new ChatChannel({
      platform: "slack",
      handler: () => Promise.resolve(),
      credentials: {
        botToken: slack.botToken,
        signingSecret: slack.signingSecret,
        apiBase: slack.apiBase,
      },
      allowUsers: ["UADA"],
      webhooks: new WebhookServer({ port: 0 }),
    });
    await channel.start(new AbortController());
  });

  after(async () => {
    await channel?.stop();
    await slack?.close();
  });

  test("an outbound message with a document uploads the file's bytes into the thread", async () => {
    const pdf = pdfFile();
    await channel.send(
      new ChannelMessage({
        sessionId: "slack:C0001:1700000000.000100",
        channel: "slack",
        chatId: "slack:C0001:1700000000.000100",
        content: "here is the report",
        media: [
          new MediaItem({
            type: "document",
            mimeType: "application/pdf",
            filename: "report.pdf",
            dataFetcher: () => Promise.resolve(pdf),
          }),
        ],
      }),
    );
    const [complete] = slack.callsOf("files.completeUploadExternal");
    assert.ok(complete, JSON.stringify(slack.log.calls.map((call) => call.method)));
    assert.equal(complete.params.channel_id, "C0001");
    assert.equal(complete.params.thread_ts, "1700000000.000100");
    const [upload] = [...slack.uploads.values()];
    assert.equal(upload?.filename, "report.pdf");
    const body = Buffer.from(upload!.data!);
    assert.ok(body.includes(Buffer.from(pdf)), `upload body of ${body.byteLength} bytes`);
  });

  test("a file over the media limit is named in a note and a URL posted as a link, not dropped", async () => {
    const chatId = "slack:C0001:1700000000.000200";
    await channel.send(
      new ChannelMessage({
        sessionId: chatId,
        channel: "slack",
        chatId,
        content: "the results",
        media: [
          new MediaItem({
            type: "document",
            mimeType: "application/zip",
            filename: "huge.zip",
            dataFetcher: () => Promise.resolve(new Uint8Array(3 * 1024 * 1024)),
          }),
          new MediaItem({
            type: "image",
            mimeType: "image/png",
            url: "https://example.com/chart.png",
          }),
        ],
      }),
    );
    const texts = slack.messagesIn("C0001").map((message) => message.text);
    const posted = texts.find((text) => text.includes("the results")) ?? "";
    assert.match(posted, /Not attached/, JSON.stringify(texts));
    assert.match(posted, /huge\.zip.*3145728 bytes, over the 2097152 byte media limit/s);
    assert.match(posted, /example\.com\/chart\.png/);
  });
});
