import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { captureLogs } from "../../_helpers/log_capture.ts";
import { AccessPolicy } from "../../../src/channels/telegram/_access.ts";
import {
  COMMAND_DENIED_MESSAGE,
  TelegramChannel,
} from "../../../src/channels/telegram/telegram_channel.ts";
import { loadTelegramSettings } from "../../../src/builtin/settings.ts";
import { parseAllowList } from "../../../src/channels/telegram/telegram_channel.ts";
import { BubError } from "../../../src/kernel/errors.ts";
import { FakeTelegramServer } from "../../../src/testing/fake_telegram.ts";
import { startBot } from "./_fixtures.ts";

describe("Telegram allowlist rules", () => {
  test("a policy is configured by either list; '*' opens users but never counts as listed", () => {
    assert.equal(new AccessPolicy(null, null).configured, false);
    assert.equal(new AccessPolicy([], [" "]).configured, false);
    assert.equal(new AccessPolicy(null, ["-100"]).configured, true);
    const open = new AccessPolicy(["*"], null);
    assert.equal(open.configured && open.everyone, true);
    assert.equal(open.userAllowed({ id: 5 }), true);
    assert.equal(open.userListed({ id: 5, username: "eve" }), false);
    const listed = new AccessPolicy(["42", "ada", "*"], null);
    assert.equal(listed.userListed({ id: 42 }), true);
    assert.equal(listed.userListed({ id: 7, username: "ada" }), true);
    assert.equal(listed.userListed({ id: 7, username: "eve" }), false);
    assert.equal(new AccessPolicy(null, ["*"]).chatAllowed("-5"), true);
  });

  test("allow_users accepts '*' as text and as a YAML list, and lists of ids", () => {
    const settings = (allow: unknown) =>
      loadTelegramSettings({ env: {}, config: { telegram: { allow_users: allow } } }).allow_users;
    assert.deepEqual(parseAllowList(settings(["*"])), ["*"]);
    assert.deepEqual(parseAllowList(settings("*")), ["*"]);
    assert.deepEqual(parseAllowList(settings([42, "ada"])), ["42", "ada"]);
    const env = loadTelegramSettings({ env: { BUB_TELEGRAM_ALLOW_USERS: "*" }, config: {} });
    assert.equal(env.allow_users, "*");
  });

  test("start rejects with a config BubError naming the settings when no allowlist is set", async () => {
    await using server = await FakeTelegramServer.start();
    const channel = new TelegramChannel({
      handler: () => Promise.resolve(),
      token: server.token,
      apiRoot: server.apiRoot,
    });
    await assert.rejects(channel.start(new AbortController()), (error: unknown) => {
      assert.ok(BubError.isInstance(error));
      assert.equal(error.kind, "config");
      assert.match(error.message, /BUB_TELEGRAM_ALLOW_USERS.*BUB_TELEGRAM_ALLOW_CHATS.*"\*"/s);
      return true;
    });
    assert.equal(channel.polling, false);
    assert.equal(server.calls.length, 0);
  });

  test("'*' logs a warning at start; its users may chat but their comma commands are refused", async () => {
    await using logs = await captureLogs();
    await using bot = await startBot({ allowUsers: ["*"] });
    assert.ok(
      logs.warnings().some((line) => line.includes('allow_users="*"')),
      logs.warnings().join("\n"),
    );
    bot.server.pushText(",touch x");
    bot.server.pushText("hello");
    const [message] = await bot.received(1);
    assert.equal(message?.kind, "normal");
    const [refusal] = await bot.server.waitForCalls("sendMessage");
    assert.equal(refusal?.params.text, COMMAND_DENIED_MESSAGE);
    assert.equal(bot.inbox.length, 1);
    assert.ok(logs.warnings().some((line) => line.startsWith("telegram.command_denied user_id=")));
  });

  test('allow_chats "*" with no allow_users (config or BUB_TELEGRAM_ALLOW_CHATS="*") logs the open-bot warning at start, as allow_users "*" does', async () => {
    for (
      const sources of [
        { env: { BUB_TELEGRAM_ALLOW_CHATS: "*" }, config: {} },
        { env: {}, config: { telegram: { allow_chats: "*" } } },
      ]
    ) {
      const settings = loadTelegramSettings(sources);
      await using logs = await captureLogs();
      await using bot = await startBot({
        allowUsers: parseAllowList(settings.allow_users),
        allowChats: parseAllowList(settings.allow_chats),
      });
      const warning = logs.warnings().find((line) => line.includes('allow_chats="*"'));
      assert.ok(warning, logs.warnings().join("\n"));
      assert.match(warning, /every Telegram user in every chat may talk to the bot/);
      bot.server.pushText("hello");
      const [message] = await bot.received(1);
      assert.equal(message?.kind, "normal");
    }
  });

  test('allow_chats "*" with a user allowlist logs no open-bot warning', async () => {
    await using logs = await captureLogs();
    await using _bot = await startBot({ allowUsers: ["ada"], allowChats: ["*"] });
    assert.deepEqual(
      logs.warnings().filter((line) => line.includes("may talk to the bot")),
      [],
    );
  });

  test("a user on a chat-only allowlist may chat but not run comma commands; a listed user may", async () => {
    await using bot = await startBot({ allowUsers: null, allowChats: ["1001", "2002"] });
    const other = bot.server.makeUser(2002, "bob");
    bot.server.pushText(",ls", { from: other });
    await bot.server.waitForCalls("sendMessage");
    assert.equal(bot.inbox.length, 0);
    await bot.channel.stop();
    await using listed = await startBot({ allowUsers: ["ada"] });
    listed.server.pushText(",ls -la");
    const [command] = await listed.received(1);
    assert.equal(command?.kind, "command");
    assert.equal(command?.content, ",ls -la");
  });
});

describe("Telegram secrets in logs", () => {
  test("a failed media download is logged without the bot token", async () => {
    await using logs = await captureLogs();
    const token = "987654321:AAHsecret-Token_value";
    const server = await FakeTelegramServer.start({ token, fileDownloadStatus: 500 });
    await using bot = await startBot({}, server);
    const file = bot.server.addFile(new Uint8Array([1, 2, 3]), "photos/p.jpg");
    bot.server.pushMessage({
      photo: [{ file_id: file.file_id, file_unique_id: "u", width: 1, height: 1, file_size: 3 }],
    });
    const [message] = await bot.received(1);
    assert.equal(await message!.media[0]!.dataFetcher!(), null);
    const line = logs.warnings().find((text) => text.startsWith("telegram.download failed"));
    assert.ok(line, logs.warnings().join("\n"));
    assert.match(line, /Cannot download .*\/file\/bot\[REDACTED\]\/photos\/p\.jpg/);
    assert.match(line, /HTTP 500/);
    for (const text of logs.messages()) {
      assert.ok(!text.includes("AAHsecret"), `token leaked: ${text}`);
    }
  });
});
