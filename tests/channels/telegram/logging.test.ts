import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { captureLogs } from "../../_helpers/log_capture.ts";
import { TelegramChannel } from "../../../src/channels/telegram/telegram_channel.ts";
import { FakeTelegramServer } from "../../../src/testing/fake_telegram.ts";
import { startBot } from "./_fixtures.ts";

describe("Telegram channel logging", () => {
  test("start logs the allowlist sizes and proxy flag; strangers and malformed updates are logged", async () => {
    await using logs = await captureLogs();
    {
      await using bot = await startBot({ allowUsers: ["ada", "42"], allowChats: null });
      const stranger = bot.server.makeUser(3003, "mallory");
      bot.server.pushText("hi", { from: stranger, chat: bot.server.privateChat(stranger) });
      bot.server.pushUpdate({ message: { message_id: 1 } });
      bot.server.pushText("ok");
      await bot.received(1);
      await bot.server.waitForCalls("sendMessage");
    }
    const messages = logs.messages();
    assert.ok(
      messages.includes(
        "telegram.start allow_users_count=2 allow_chats_count=0 proxy_enabled=false",
      ),
      messages.join("\n"),
    );
    assert.ok(messages.includes("telegram.start polling"));
    const warnings = logs.warnings();
    assert.ok(
      warnings.includes("telegram.denied user_id=3003 username=mallory chat_id=3003"),
      warnings.join("\n"),
    );
    assert.ok(
      warnings.some((line) =>
        /telegram\.update malformed update_id=\d+ reason=missing chat/.test(line)
      ),
    );
    assert.ok(messages.includes("telegram.stopped"));
  });
});

describe("Telegram channel with a rejected token", () => {
  test("start returns at once; the Unauthorized failure is logged and polling ends", async () => {
    await using logs = await captureLogs();
    await using server = await FakeTelegramServer.start();
    const channel = new TelegramChannel({
      handler: () => Promise.resolve(),
      token: "1:REVOKED",
      apiRoot: server.apiRoot,
      allowUsers: ["*"],
    });
    await channel.start(new AbortController());
    assert.equal(channel.polling, true);
    for (let i = 0; channel.polling && i < 500; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(channel.polling, false, "polling ended");
    assert.ok(
      logs.warnings().some((line) =>
        line.startsWith("telegram.polling failed") && line.includes("Unauthorized")
      ),
      logs.warnings().join("\n"),
    );
    await channel.stop();
  });
});
