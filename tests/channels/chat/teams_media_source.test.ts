/**
 * The cluster side of Teams media in: a message's media item is stored by reference (its URL and
 * the activity's `serviceUrl`), and the instance that runs the turn fetches the bytes from that
 * reference through its own Teams channel, with its own bot token, for the `serviceUrl` origin
 * only.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChatChannel } from "../../../src/channels/chat/chat_channel.ts";
import { WebhookServer } from "../../../src/channels/chat/webhook_server.ts";
import { FakeTeamsServer } from "../../../src/testing/fake_teams.ts";
import { PNG_BASE64 } from "../../agent/_media_files.ts";

describe("the Teams channel fetching a stored media reference", () => {
  let teams: FakeTeamsServer;
  let channel: ChatChannel;
  const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));

  before(async () => {
    teams = await FakeTeamsServer.start();
    channel = new ChatChannel({
      platform: "teams",
      handler: () => Promise.resolve(),
      credentials: {
        appId: teams.appId,
        appPassword: teams.appPassword,
        apiBase: teams.apiBase,
      },
      allowUsers: ["29:ada"],
      webhooks: new WebhookServer({ port: 0 }),
    });
    await channel.start(new AbortController());
  });

  after(async () => {
    await channel?.stop();
    await teams?.close();
  });

  test("a reference with the activity's serviceUrl fetches the image with the bot's token", async () => {
    const { contentUrl } = teams.inlineImage(png) as { contentUrl: string };
    const fetcher = channel.mediaFetcher({ url: contentUrl, service_url: teams.serviceUrl });
    assert.ok(fetcher);
    assert.deepEqual([...(await fetcher())!], [...png]);
    const [call] = teams.log.calls.filter((c) => String(c.params.__path).includes("/attachments/"));
    assert.match(call!.authorization, /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  });

  test("a reference without a serviceUrl, or marked a download link, is fetched without the token", async () => {
    const { contentUrl } = teams.inlineImage(png) as { contentUrl: string };
    const before = teams.log.calls.length;
    for (
      const source of [{ url: contentUrl }, {
        url: contentUrl,
        service_url: teams.serviceUrl,
        download: true,
      }]
    ) {
      // The fake's attachment service wants the token: without it, no bytes.
      assert.equal(await channel.mediaFetcher(source)!(), null);
    }
    const calls = teams.log.calls.slice(before);
    assert.equal(calls.length, 2);
    for (const call of calls) assert.equal(call.authorization, "");
  });
});
