/**
 * `bub gateway --enable-channel discord` as a real subprocess against the fake Discord, one for
 * the whole file: messages arrive over the fake's WebSocket gateway (HELLO, IDENTIFY, READY,
 * MESSAGE_CREATE), answers go out through its REST API (`BUB_DISCORD_API_BASE`), streamed as one
 * message that is edited; signed interactions reach the gateway's webhook server.
 *
 * Approvals as buttons (message components): a mention whose turn calls `bash` under an
 * `approvals:` rule gets the answer with `,approve <id>` and a message with Approve / Always /
 * Deny buttons; a forged click gets 401, a click by a user who is not on `allow_users` is refused
 * and runs nothing; the owner's click on Approve (over the gateway, as for an app without an
 * interactions endpoint) runs the command once and the answer arrives.
 *
 * Attachments: a MESSAGE_CREATE carries attachments the fake serves from its CDN; the mock model
 * (an OpenAI-compatible provider) receives the image and the voice note as content parts with
 * their bytes, and the content type Discord gave.
 *
 * Each test uses messages (and so threads) of its own; the model answers by the message
 * (`echoOrEffectModel`).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { FakeDiscordServer } from "../../../src/testing/fake_discord.ts";
import { base64, oggOpusFile, PNG_BASE64 } from "../../agent/_media_files.ts";
import { echoOrEffectModel, userParts, WRITE_THE_EFFECT } from "./_echo_model.ts";
import { type Gateway, startGateway } from "./_gateway.ts";

describe("bub gateway serving Discord through the Chat SDK", () => {
  let discord: FakeDiscordServer;
  let gateway: Gateway;
  let webhook: string;
  let effect: string;
  const ADA = { id: "300000000000000001", username: "ada" };
  const EVE = { id: "300000000000000666", username: "eve" };
  // Approvals: bob is in the allowed guild but not listed: no comma commands, no buttons.
  const OWNER = { id: "400000000000000001", username: "ada" };
  const OTHER = { id: "400000000000000002", username: "bob" };

  before(async () => {
    discord = await FakeDiscordServer.start();
    gateway = await startGateway({
      channel: "discord",
      model: echoOrEffectModel(() => effect),
      env: {
        BUB_DISCORD_BOT_TOKEN: discord.botToken,
        BUB_DISCORD_PUBLIC_KEY: discord.publicKey,
        BUB_DISCORD_APPLICATION_ID: discord.applicationId,
        BUB_DISCORD_API_BASE: discord.apiBase,
        BUB_DISCORD_ALLOW_USERS: `${ADA.id},${OWNER.id}`,
        // The guild and ada's DM are served; a stranger there is still refused (both lists apply).
        BUB_DISCORD_ALLOW_CHANNELS: `${discord.guildId},${discord.dmChannel(ADA)}`,
        BUB_STREAM_OUTPUT: "true",
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
      },
      // Messages go to identified gateway sessions only: wait for the bot's.
      ready: () => discord.identified > 0,
      context: () => JSON.stringify(discord.log.calls),
    });
    webhook = gateway.webhook;
    effect = join(gateway.dirs.workspace, "effect.txt");
  });

  after(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await discord?.close();
  });

  /** The bot's messages in the thread it opened on `message`, once one contains `needle`. */
  async function answers(message: Record<string, unknown>, needle: string): Promise<string[]> {
    return await gateway.waitFor(() => {
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
    assert.match(gateway.process.stdout, /serving discord/);
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
    const texts = await gateway.waitFor(() => {
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
    const before = gateway.model.requests.length;
    const message = discord.messageCreate(EVE, "let me in");
    assert.deepEqual(await answers(message, "Access denied."), ["Access denied."]);
    const later = discord.messageCreate(ADA, "after the stranger");
    await answers(later, "You said: after the stranger");
    const asked = gateway.model.requests.slice(before).map((request) =>
      JSON.stringify(request.body)
    );
    assert.ok(asked.every((body) => !body.includes("let me in")));
  });

  test("a comma command runs for an allowed user and is refused to a stranger", async () => {
    const before = gateway.model.requests.length;
    const mine = discord.messageCreate(ADA, ",help");
    const [help] = await answers(mine, "Commands start with ','");
    assert.match(help!, /,tape\.info/);
    const theirs = discord.messageCreate(EVE, ",help");
    assert.deepEqual(await answers(theirs, "Access denied."), ["Access denied."]);
    assert.equal(gateway.model.requests.length, before);
  });

  test("a duplicate delivery of the same message is answered once", async () => {
    const message = discord.messageCreate(ADA, "only once");
    await answers(message, "You said: only once");
    discord.redeliver(message);
    discord.redeliver(message);
    const later = discord.messageCreate(ADA, "after the duplicates");
    await answers(later, "You said: after the duplicates");
    assert.deepEqual(await answers(message, "only once"), ["You said: only once"]);
    const asked = gateway.model.requests.map((request) => JSON.stringify(request.body));
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
    await gateway.waitFor(() => discord.identified > sessions, "a new gateway session");
    const message = discord.messageCreate(ADA, "after the reconnect");
    assert.deepEqual(await answers(message, "You said: after the reconnect"), [
      "You said: after the reconnect",
    ]);
  });

  describe("approvals as Discord buttons", () => {
    test("a held call gets buttons; a forged click gets 401, a stranger's is refused, the owner's Approve runs it once", async () => {
      const message = discord.messageCreate(OWNER, WRITE_THE_EFFECT);
      const thread = await gateway.waitFor(
        () => discord.threadOf(String(message.id)),
        "the thread",
      );
      const card = await gateway.waitFor(
        () => discord.messagesIn(thread).find((m) => m.buttons.length >= 3),
        "the approval buttons",
        60_000,
      );
      assert.deepEqual(card.buttons.map((b) => b.label), ["Approve", "Always", "Deny"]);
      const approve = card.buttons[0]!;
      const id = /^bub_approve\n,approve ([a-z2-7]{10})$/.exec(approve.customId)?.[1];
      assert.ok(id, approve.customId);
      const texts = () => discord.messagesIn(thread).map((m) => m.content);
      assert.ok(texts().some((text) => text.includes(`,approve ${id}`)), JSON.stringify(texts()));
      assert.equal(existsSync(effect), false);

      const button = { customId: approve.customId, messageId: card.id };
      const forged = await discord.click(webhook, OWNER, button, { forge: true });
      assert.equal(forged.status, 401);
      await forged.body?.cancel();
      const refused = await discord.click(webhook, OTHER, button);
      assert.equal(refused.status, 200);
      // Discord's ack: "deferred update" (type 6), the button's message stays as it is.
      assert.deepEqual(await refused.json(), { type: 6 });
      await gateway.waitFor(
        () => texts().find((text) => text.startsWith("Comma commands are only accepted")),
        "the stranger's refusal",
        60_000,
      );
      assert.equal(existsSync(effect), false);

      // An app without an interactions endpoint gets clicks over the gateway: acknowledged by a
      // REST callback (type 6, deferred update), then run like a signed one.
      const clicked = discord.clickOverGateway(OWNER, button);
      const [ack] = await discord.log.waitFor(
        "POST /interactions/{id}/{token}/callback",
        1,
        (call) => String(call.params.__path).includes(`/interactions/${clicked}/`),
      );
      assert.equal(ack!.params.type, 6);
      await gateway.waitFor(
        () => texts().find((text) => text.includes("Effect written.")),
        "the answer",
        60_000,
      );
      assert.equal(readFileSync(effect, "utf8"), "ran\n");
      const asked = gateway.model.requests.filter((request) =>
        JSON.stringify(request.body).includes(WRITE_THE_EFFECT)
      );
      assert.equal(asked.length, 2);
    });
  });

  describe("Discord attachments passed to the model", () => {
    test("an image and a voice note arrive as image_url and input_audio parts, fetched from the CDN", async () => {
      const before = discord.callsOf("GET /attachments").length;
      const skip = gateway.model.requests.length;
      const png = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
      const ogg = oggOpusFile(1);
      const attachments = [
        discord.addAttachment("cat.png", "image/png", png),
        discord.addAttachment("voice-message.ogg", "audio/ogg", ogg),
      ];
      discord.messageCreate(ADA, "what is this?", { attachments });
      const parts = userParts(await gateway.modelRequest("what is this?", skip));
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
      assert.equal(discord.callsOf("GET /attachments").length, before + 2);
    });

    test("an attachment over the media limit is not downloaded: the model gets a note", async () => {
      const before = discord.callsOf("GET /attachments").length;
      const skip = gateway.model.requests.length;
      const big = new Uint8Array(3 * 1024 * 1024).fill(1);
      const attachments = [discord.addAttachment("movie.mp4", "video/mp4", big)];
      discord.messageCreate(ADA, "too big?", { attachments });
      const parts = userParts(await gateway.modelRequest("too big?", skip));
      const text = typeof parts === "string"
        ? parts
        : String(parts.find((part) => part.type === "text")?.text);
      assert.match(text, /movie\.mp4/);
      assert.match(text, /larger than the 2097152 byte media limit/);
      if (Array.isArray(parts)) {
        assert.equal(parts.some((part) => part.type === "video_url"), false);
      }
      assert.equal(discord.callsOf("GET /attachments").length, before);
    });
  });

  test("SIGTERM stops the gateway cleanly with exit code 0", async () => {
    process.kill(gateway.process.process.pid!, "SIGTERM");
    assert.equal(await gateway.process.exited(10_000), 0);
  });
});
