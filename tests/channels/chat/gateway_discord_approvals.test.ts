/**
 * Approvals as Discord buttons (message components) through a real `bub gateway`: a mention whose
 * turn calls `bash` under an `approvals:` rule gets the answer with `,approve <id>` and a message
 * with Approve / Always / Deny buttons; a forged click gets 401, a click by a user who is not on
 * `allow_users` is refused and runs nothing; the owner's click on Approve (over the gateway, as
 * for an app without an interactions endpoint) runs the command once and the answer arrives.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FakeDiscordServer } from "../../../src/testing/fake_discord.ts";
import { type MockReply, mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";
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

describe("approvals as Discord buttons", () => {
  let dirs: TempDirs;
  let discord: FakeDiscordServer;
  let model: MockLlmServer;
  let gateway: Child;
  let webhook: string;
  let effect: string;
  const OWNER = { id: "400000000000000001", username: "ada" };
  const OTHER = { id: "400000000000000002", username: "bob" };

  before(async () => {
    dirs = tempDirs("bub-gateway-discord-approvals-");
    effect = join(dirs.workspace, "effect.txt");
    discord = await FakeDiscordServer.start();
    model = await MockLlmServer.start({
      script: (request: MockRequest): MockReply => {
        const messages = (request.body as { messages: { role: string }[] }).messages;
        if (messages.at(-1)?.role === "tool") return mockReply.text("Effect written.");
        return mockReply.toolCall("bash", { command: `echo ran >> ${effect}` });
      },
    });
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
        // bob may talk (the guild is allowed) but is not listed: no comma commands, no buttons.
        BUB_DISCORD_ALLOW_USERS: OWNER.id,
        BUB_DISCORD_ALLOW_CHANNELS: discord.guildId,
        BUB_WEBHOOK_PORT: "0",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
        BUB_APPROVALS: JSON.stringify([
          { tool: "bash", match: "effect\\.txt", reason: "writes the effect file" },
        ]),
      }),
    });
    await gateway.waitFor(/webhooks on http:\/\/127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
    const base = /webhooks on (http:\/\/127\.0\.0\.1:\d+)/.exec(gateway.stdout)![1];
    webhook = `${base}/webhooks/discord`;
    await until(() => discord.identified > 0 || undefined, "the bot's gateway session");
  });

  after(async () => {
    if (gateway && gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway.kill());
    await model?.close();
    await discord?.close();
    dirs?.remove();
  });

  async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
    const end = Date.now() + 60_000;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > end) {
        throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(discord?.log.calls)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  test("a held call gets buttons; a forged click gets 401, a stranger's is refused, the owner's Approve runs it once", async () => {
    const message = discord.messageCreate(OWNER, "write the effect");
    const thread = await until(() => discord.threadOf(String(message.id)), "the thread");
    const card = await until(
      () => discord.messagesIn(thread).find((m) => m.buttons.length >= 3),
      "the approval buttons",
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
    await until(
      () => texts().find((text) => text.startsWith("Comma commands are only accepted")),
      "the stranger's refusal",
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
    await until(() => texts().find((text) => text.includes("Effect written.")), "the answer");
    assert.equal(readFileSync(effect, "utf8"), "ran\n");
    assert.equal(model.requests.length, 2);
  });
});
