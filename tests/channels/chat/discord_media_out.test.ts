/**
 * Media out on Discord: an outbound message carrying a media item is posted as a multipart
 * message with the file attached; the fake Discord receives the text and the file's bytes.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChatChannel } from "../../../src/channels/chat/chat_channel.ts";
import { WebhookServer } from "../../../src/channels/chat/webhook_server.ts";
import { ChannelMessage, MediaItem } from "../../../src/kernel/channel_message.ts";
import { FakeDiscordServer } from "../../../src/testing/fake_discord.ts";
import { PNG_BASE64 } from "../../agent/_media_files.ts";

describe("the Discord channel posting media", () => {
  test("an outbound message with an image posts the text and the image's bytes as an attachment", async () => {
    await using discord = await FakeDiscordServer.start();
    const inbox: ChannelMessage[] = [];
    const channel = new ChatChannel({
      platform: "discord",
      handler: (message) => {
        inbox.push(message as ChannelMessage);
        return Promise.resolve();
      },
      credentials: {
        botToken: discord.botToken,
        publicKey: discord.publicKey,
        applicationId: discord.applicationId,
        apiBase: discord.apiBase,
      },
      allowUsers: ["300000000000000001"],
      webhooks: new WebhookServer({ port: 0 }),
    });
    await channel.start(new AbortController());
    try {
      discord.messageCreate({ id: "300000000000000001", username: "ada" }, "draw a cat", {
        direct: true,
      });
      const end = Date.now() + 30_000;
      while (inbox.length === 0 && Date.now() < end) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const chatId = inbox[0]!.chatId;
      const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
      await channel.send(
        new ChannelMessage({
          sessionId: inbox[0]!.sessionId,
          channel: "discord",
          chatId,
          content: "here is a cat",
          media: [
            new MediaItem({
              type: "image",
              mimeType: "image/png",
              url: `data:image/png;base64,${PNG_BASE64}`,
            }),
          ],
        }),
      );
      const posts = discord.log.calls.filter((call) => Array.isArray(call.params.__files));
      assert.equal(posts.length, 1, JSON.stringify(discord.log.calls.map((call) => call.method)));
      assert.equal(posts[0]!.params.content, "here is a cat");
      const [file] = posts[0]!.params.__files as { filename: string; data: Uint8Array }[];
      assert.equal(file?.filename, "file-1.png");
      assert.deepEqual([...file!.data], [...png]);
    } finally {
      await channel.stop();
    }
  });
});
