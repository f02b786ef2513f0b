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
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { postgresUrl, withAdmin } from "../../tape/_postgres.ts";
import {
  BIN,
  type Child,
  childEnv,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "../../cli/_spawn.ts";
import { echoModel } from "./_echo_model.ts";

const url = postgresUrl("Discord in cluster mode");

if (url) {
  describe("Discord through the cluster inbox", () => {
    const database = `bub_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    let dirs: TempDirs;
    let discord: FakeDiscordServer;
    let model: MockLlmServer;
    const gateways: Child[] = [];
    const ADA = { id: "500000000000000001", username: "ada" };
    const EVE = { id: "500000000000000666", username: "eve" };

    before(async () => {
      await withAdmin(url, (sql) => sql.unsafe(`CREATE DATABASE "${database}"`));
      const store = new URL(url);
      store.pathname = `/${database}`;
      dirs = tempDirs("bub-cluster-discord-");
      discord = await FakeDiscordServer.start();
      model = await MockLlmServer.start({ script: echoModel });
      for (const instance of ["a", "b"]) {
        const gateway = startChild(
          runtimeCommand(BIN, ["gateway", "--enable-channel", "discord"]),
          {
            cwd: dirs.workspace,
            env: childEnv(dirs, {
              BUB_MODEL: "custom:x",
              BUB_API_BASE: model.url,
              BUB_API_KEY: `sk-${instance}`,
              BUB_TAPE_STORE: store.href,
              BUB_CLUSTER_POLL_SECONDS: "0.1",
              BUB_DISCORD_BOT_TOKEN: discord.botToken,
              BUB_DISCORD_PUBLIC_KEY: discord.publicKey,
              BUB_DISCORD_APPLICATION_ID: discord.applicationId,
              BUB_DISCORD_API_BASE: discord.apiBase,
              BUB_DISCORD_ALLOW_USERS: ADA.id,
              BUB_WEBHOOK_PORT: "0",
              BUB_STREAM_OUTPUT: "true",
              BUB_DEBOUNCE_SECONDS: "0.05",
              BUB_MAX_WAIT_SECONDS: "0.5",
            }),
          },
        );
        gateways.push(gateway);
        await gateway.waitFor(/cluster instance/, { timeoutMs: 60_000 });
        // The first instance leads (and connects) before the second one starts.
        await until(() => discord.identified === 1, "the elected gateway session");
      }
    });

    after(async () => {
      for (const gateway of gateways) {
        if (gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
      }
      for (const gateway of gateways) await gateway.exited(10_000).catch(() => gateway.kill());
      await model?.close();
      await discord?.close();
      dirs?.remove();
      await withAdmin(url, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${database}"`));
    });

    async function until(check: () => boolean, what: string): Promise<void> {
      const end = Date.now() + 60_000;
      while (!check()) {
        if (Date.now() > end) {
          throw new Error(
            `Timed out waiting for ${what}\n${gateways.map((g) => g.stderr).join("\n---\n")}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
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
      const asked = model.requests.map((request) => JSON.stringify(request.body));
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
      gateways[0]!.kill();
      await gateways[0]!.exited(20_000).catch(() => null);
      await until(() => discord.identified === 2, "the follower's gateway session");
      const message = discord.messageCreate(ADA, "after the takeover");
      await until(() => inThread(String(message.id)).includes("You said: after the takeover"), "");
      assert.deepEqual(inThread(String(message.id)), ["You said: after the takeover"]);
    });
  });
}
