/**
 * The Discord chat channel in process against the fake Discord: a wrong bot token or a missing
 * public key refuses to start with a `config` error (and leaves the webhook route free), and
 * `allow_channels` may name a channel or its whole guild.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChatChannel } from "../../../src/channels/chat/chat_channel.ts";
import { CHAT_PLATFORMS } from "../../../src/channels/chat/platforms.ts";
import { ChatAccess } from "../../../src/channels/chat/_access.ts";
import { discordRest } from "../../../src/channels/chat/_discord.ts";
import { WebhookServer } from "../../../src/channels/chat/webhook_server.ts";
import { BubError } from "../../../src/kernel/errors.ts";
import { FakeDiscordServer } from "../../../src/testing/fake_discord.ts";

function configError(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(BubError.isInstance(error), String(error));
    assert.equal((error as BubError).kind, "config");
    assert.match((error as BubError).message, pattern);
    return true;
  };
}

describe("the Discord chat channel", () => {
  test("a bot token the gateway refuses fails start with a config error; the route is freed", async () => {
    await using discord = await FakeDiscordServer.start();
    const webhooks = new WebhookServer({ port: 0 });
    const options = {
      platform: "discord",
      handler: () => Promise.resolve(),
      credentials: {
        botToken: "not-the-token",
        publicKey: discord.publicKey,
        applicationId: discord.applicationId,
        apiBase: discord.apiBase,
      },
      allowUsers: ["1"],
      webhooks,
    };
    const channel = new ChatChannel(options);
    await assert.rejects(
      channel.start(new AbortController()),
      configError(/Cannot connect to the Discord gateway/),
    );
    assert.equal(discord.identified, 0);
    // The failed start let go of /webhooks/discord: a corrected channel can take it.
    const fixed = new ChatChannel({
      ...options,
      credentials: { ...options.credentials, botToken: discord.botToken },
    });
    await fixed.start(new AbortController());
    assert.equal(discord.identified, 1);
    await fixed.stop();
  });

  test("a missing public key or application id refuses to start, naming the variable", async () => {
    const webhooks = new WebhookServer({ port: 0 });
    const channel = (credentials: Record<string, string>) =>
      new ChatChannel({
        platform: "discord",
        handler: () => Promise.resolve(),
        credentials: { botToken: "t", ...credentials },
        allowUsers: ["1"],
        webhooks,
      });
    await assert.rejects(
      channel({ applicationId: "1" }).start(new AbortController()),
      configError(/BUB_DISCORD_PUBLIC_KEY/),
    );
    await assert.rejects(
      channel({ publicKey: "ab".repeat(32) }).start(new AbortController()),
      configError(/BUB_DISCORD_APPLICATION_ID/),
    );
  });

  test("allow_channels names a channel or its whole guild; a DM is no guild", () => {
    const keys = CHAT_PLATFORMS.discord!.channelKeys;
    const byGuild = new ChatAccess("discord", ["1"], ["900"], keys);
    assert.ok(byGuild.channelAllowed("900:901"));
    assert.ok(!byGuild.channelAllowed("800:901"));
    assert.ok(!byGuild.channelAllowed("@me:555"));
    const byChannel = new ChatAccess("discord", ["1"], ["901"], keys);
    assert.ok(byChannel.channelAllowed("900:901"));
    assert.ok(byChannel.channelAllowed("@me:901"));
    assert.ok(!byChannel.channelAllowed("900:902"));
    assert.ok(!new ChatAccess("discord", ["1"], ["@me"], keys).channelAllowed("@me:5"));
  });

  test("api_base with or without the version gives the adapter and discord.js the same base", () => {
    assert.deepEqual(discordRest(null), {
      base: "https://discord.com/api/v10",
      api: "https://discord.com/api",
      version: "10",
    });
    assert.deepEqual(discordRest("http://127.0.0.1:9/api/v9/"), {
      base: "http://127.0.0.1:9/api/v9",
      api: "http://127.0.0.1:9/api",
      version: "9",
    });
    assert.deepEqual(discordRest("http://proxy/discord"), {
      base: "http://proxy/discord/v10",
      api: "http://proxy/discord",
      version: "10",
    });
  });
});
