/**
 * Discord in cluster mode: two real `bub gateway` instances on one PostgreSQL tape store (a
 * database of its own) and the fake Discord. One elected instance holds the Discord gateway
 * connection (the other would receive every message too); messages go through the shared inbox
 * (deduplicated by message id) and either instance may answer; when the holder stops, the other
 * one connects and keeps serving.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { FakeDiscordServer } from "../../../src/testing/fake_discord.ts";
import { postgresUrl } from "../../tape/_postgres.ts";
import { type Gateway, startGateway } from "./_gateway.ts";

const url = postgresUrl("Discord in cluster mode");

if (url) {
  describe("Discord through the cluster inbox", () => {
    let discord: FakeDiscordServer;
    let cluster: Gateway;
    const ADA = { id: "500000000000000001", username: "ada" };
    const EVE = { id: "500000000000000666", username: "eve" };

    before(async () => {
      discord = await FakeDiscordServer.start();
      cluster = await startGateway({
        channel: "discord",
        cluster: { url },
        env: {
          BUB_DISCORD_BOT_TOKEN: discord.botToken,
          BUB_DISCORD_PUBLIC_KEY: discord.publicKey,
          BUB_DISCORD_APPLICATION_ID: discord.applicationId,
          BUB_DISCORD_API_BASE: discord.apiBase,
          BUB_DISCORD_ALLOW_USERS: ADA.id,
          BUB_STREAM_OUTPUT: "true",
        },
        // The first instance leads (and connects) before the second one starts.
        ready: () => discord.identified === 1,
      });
    });

    after(async () => {
      await cluster?.[Symbol.asyncDispose]();
      await discord?.close();
    });

    async function until(check: () => boolean, what: string): Promise<void> {
      await cluster.waitFor(check, what, 60_000);
    }

    const inThread = (id: string) => discord.messagesIn(id).map((m) => m.content);

    test("one instance holds the gateway; a mention is answered once", async () => {
      // The follower retries every second: it must stay a follower.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(discord.identified, 1);
      const message = discord.messageCreate(ADA, "to both");
      const id = String(message.id);
      await until(() => inThread(id).includes("You said: to both"), "the answer");
      const later = discord.messageCreate(ADA, "after both");
      await until(() => inThread(String(later.id)).includes("You said: after both"), "later");
      assert.deepEqual(inThread(id), ["You said: to both"]);
      const asked = cluster.model.requests.map((request) => JSON.stringify(request.body));
      assert.equal(asked.filter((body) => body.includes("to both")).length, 1);
    });

    test("a follow-up in the thread is answered once, and 10 mentions get 10 answers", async () => {
      const first = discord.messageCreate(ADA, "open a thread");
      const thread = String(first.id);
      await until(() => inThread(thread).includes("You said: open a thread"), "the answer");
      discord.messageCreate(ADA, "and more", { channelId: thread });
      await until(() => inThread(thread).includes("You said: and more"), "the follow-up");
      const mentions = Array.from(
        { length: 10 },
        (_, i) => discord.messageCreate(ADA, `ping ${i}`),
      );
      await until(
        () => mentions.every((m, i) => inThread(String(m.id)).includes(`You said: ping ${i}`)),
        "10 answers",
      );
      for (const [i, m] of mentions.entries()) {
        assert.deepEqual(inThread(String(m.id)), [`You said: ping ${i}`]);
      }
      assert.deepEqual(inThread(thread), ["You said: open a thread", "You said: and more"]);
    });

    test("a stranger is refused once", async () => {
      const message = discord.messageCreate(EVE, "let me in");
      await until(() => inThread(String(message.id)).includes("Access denied."), "the refusal");
      const later = discord.messageCreate(ADA, "after the stranger");
      await until(() => inThread(String(later.id)).includes("You said: after the stranger"), "");
      assert.deepEqual(inThread(String(message.id)), ["Access denied."]);
    });

    test("when the gateway holder dies, the other instance connects and answers", async () => {
      // The leader (the first instance) killed outright, as a crash: its PostgreSQL connection,
      // and with it the lead, goes away.
      cluster.instances[0]!.kill();
      await cluster.instances[0]!.exited(20_000).catch(() => null);
      await until(() => discord.identified === 2, "the follower's gateway session");
      const message = discord.messageCreate(ADA, "after the takeover");
      await until(() => inThread(String(message.id)).includes("You said: after the takeover"), "");
      assert.deepEqual(inThread(String(message.id)), ["You said: after the takeover"]);
    });
  });
}
