/**
 * `bub gateway --enable-channel discord` as a real subprocess against the fake Discord: messages
 * arrive over the fake's WebSocket gateway (HELLO, IDENTIFY, READY, MESSAGE_CREATE), answers go
 * out through its REST API (`BUB_DISCORD_API_BASE`), streamed as one message that is edited;
 * signed interactions reach the gateway's webhook server.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { FakeDiscordServer } from "../../../src/testing/fake_discord.ts";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
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

describe("bub gateway serving Discord through the Chat SDK", () => {
  let dirs: TempDirs;
  let discord: FakeDiscordServer;
  let model: MockLlmServer;
  let gateway: Child;
  let webhook: string;
  const ADA = { id: "300000000000000001", username: "ada" };
  const EVE = { id: "300000000000000666", username: "eve" };

  before(async () => {
    dirs = tempDirs("bub-gateway-discord-");
    discord = await FakeDiscordServer.start();
    model = await MockLlmServer.start({ script: echoModel });
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
        BUB_STREAM_OUTPUT: "true",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
      }),
    });
    await gateway.waitFor(/webhooks on http:\/\/127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
    // Messages go to identified gateway sessions only: wait for the bot's.
    const end = Date.now() + 60_000;
    while (discord.identified === 0 && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const base = /webhooks on (http:\/\/127\.0\.0\.1:\d+)/.exec(gateway.stdout)![1];
    webhook = `${base}/webhooks/discord`;
  });

  after(async () => {
    if (gateway && gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway.kill());
    await model?.close();
    await discord?.close();
    dirs?.remove();
  });

  /** Waits until `probe` gives a value. */
  async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
    const end = Date.now() + 30_000;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > end) {
        throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(discord.log.calls)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The bot's messages in the thread it opened on `message`, once one contains `needle`. */
  async function answers(message: Record<string, unknown>, needle: string): Promise<string[]> {
    return await until(() => {
      const thread = discord.threadOf(String(message.id));
      const texts = thread ? discord.messagesIn(thread).map((m) => m.content) : [];
      return texts.some((text) => text.includes(needle)) ? texts : undefined;
    }, `"${needle}"`);
  }

  test("a mention opens a thread and is answered there, streamed into one edited message", async () => {
    assert.equal(discord.identified, 1);
    const message = discord.messageCreate(ADA, "hello bub");
    assert.deepEqual(await answers(message, "You said: hello bub"), ["You said: hello bub"]);
    const thread = discord.threadOf(String(message.id))!;
    const edits = discord.callsOf("PATCH /channels/{channel}/messages/{message}")
      .filter((call) => String(call.params.__path).startsWith(`/channels/${thread}/`));
    assert.ok(edits.length >= 1, JSON.stringify(discord.log.calls));
    assert.equal(edits.at(-1)!.params.content, "You said: hello bub");
    const typing = discord.callsOf("POST /channels/{channel}/typing");
    assert.ok(typing.some((call) => call.params.__path === `/channels/${thread}/typing`));
    assert.match(gateway.stdout, /serving discord/);
  });

  test("a follow-up in the thread (no mention) continues the conversation there", async () => {
    const first = discord.messageCreate(ADA, "open a thread");
    await answers(first, "You said: open a thread");
    const thread = discord.threadOf(String(first.id))!;
    discord.messageCreate(ADA, "and more", { channelId: thread });
    const texts = await answers(first, "You said: and more");
    assert.deepEqual(texts, ["You said: open a thread", "You said: and more"]);
  });

  test("a direct message is answered in the DM", async () => {
    discord.messageCreate(ADA, "hello in private", { direct: true });
    const dm = discord.dmChannel(ADA);
    const texts = await until(() => {
      const found = discord.messagesIn(dm).map((m) => m.content);
      return found.includes("You said: hello in private") ? found : undefined;
    }, "the DM answer");
    assert.deepEqual(texts, ["You said: hello in private"]);
  });

  test("a rate-limited edit (429, retry_after) is retried: one message, edited to the answer", async () => {
    discord.rateLimit("PATCH /channels/{channel}/messages/{message}");
    const message = discord.messageCreate(ADA, "despite the limit");
    // Given up, the edit would leave the placeholder and post the answer a second time.
    assert.deepEqual(await answers(message, "You said: despite the limit"), [
      "You said: despite the limit",
    ]);
    const edits = discord.callsOf("PATCH /channels/{channel}/messages/{message}");
    const limited = edits.filter((call) => call.params.rateLimited);
    assert.equal(limited.length, 1);
    const retried = edits.slice(edits.indexOf(limited[0]!) + 1);
    assert.ok(retried.some((call) => call.params.__path === limited[0]!.params.__path));
  });

  test("a stranger is refused and the model never sees their message", async () => {
    const before = model.requests.length;
    const message = discord.messageCreate(EVE, "let me in");
    assert.deepEqual(await answers(message, "Access denied."), ["Access denied."]);
    const later = discord.messageCreate(ADA, "after the stranger");
    await answers(later, "You said: after the stranger");
    const asked = model.requests.slice(before).map((request) => JSON.stringify(request.body));
    assert.ok(asked.every((body) => !body.includes("let me in")));
  });

  test("a comma command runs for an allowed user and is refused to a stranger", async () => {
    const before = model.requests.length;
    const mine = discord.messageCreate(ADA, ",help");
    const [help] = await answers(mine, "Commands start with ','");
    assert.match(help!, /,tape\.info/);
    const theirs = discord.messageCreate(EVE, ",help");
    assert.deepEqual(await answers(theirs, "Access denied."), ["Access denied."]);
    assert.equal(model.requests.length, before);
  });

  test("a duplicate delivery of the same message is answered once", async () => {
    const message = discord.messageCreate(ADA, "only once");
    await answers(message, "You said: only once");
    discord.redeliver(message);
    discord.redeliver(message);
    const later = discord.messageCreate(ADA, "after the duplicates");
    await answers(later, "You said: after the duplicates");
    assert.deepEqual(await answers(message, "only once"), ["You said: only once"]);
    const asked = model.requests.map((request) => JSON.stringify(request.body));
    assert.equal(asked.filter((body) => body.includes("only once")).length, 1);
  });

  test("signed interactions: a PING gets a PONG, a forged or unsigned one gets 401", async () => {
    const pong = await discord.ping(webhook);
    assert.equal(pong.status, 200);
    assert.deepEqual(await pong.json(), { type: 1 });
    const forged = await discord.ping(webhook, { forge: true });
    assert.equal(forged.status, 401);
    await forged.body?.cancel();
    const unsigned = await fetch(webhook, { method: "POST", body: JSON.stringify({ type: 1 }) });
    assert.equal(unsigned.status, 401);
    await unsigned.body?.cancel();
  });

  test("a dropped gateway connection is re-established and messages are answered again", async () => {
    const sessions = discord.identified;
    discord.disconnectGateway();
    await until(() => discord.identified > sessions || undefined, "a new gateway session");
    const message = discord.messageCreate(ADA, "after the reconnect");
    assert.deepEqual(await answers(message, "You said: after the reconnect"), [
      "You said: after the reconnect",
    ]);
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.pid!, "SIGTERM");
    assert.equal(await gateway.exited(10_000), 0);
  });
});
