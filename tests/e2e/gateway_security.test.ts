/**
 * `bub gateway` as a real subprocess against the fake Telegram Bot API: it refuses to serve
 * Telegram without an allowlist, warns on the `*` opt-in, and runs comma commands (shell
 * commands) only for users literally on the allowlist.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { FakeTelegramServer } from "../../src/testing/fake_telegram.ts";
import { COMMAND_DENIED_MESSAGE } from "../../src/channels/telegram/telegram_channel.ts";
import {
  BIN,
  type Child,
  childEnv,
  runtimeCommand,
  startChild,
  type TempDirs,
  tempDirs,
} from "../cli/_spawn.ts";

describe("bub gateway Telegram access rules", () => {
  let dirs: TempDirs | undefined;
  let telegram: FakeTelegramServer | undefined;
  let gateway: Child | undefined;

  afterEach(async () => {
    if (gateway && gateway.process.exitCode === null) process.kill(gateway.process.pid!, "SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway?.kill());
    await telegram?.close();
    dirs?.remove();
    gateway = telegram = dirs = undefined;
  });

  async function start(env: Record<string, string>): Promise<Child> {
    dirs = tempDirs("bub-gateway-sec-");
    telegram = await FakeTelegramServer.start();
    gateway = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "telegram"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: "http://127.0.0.1:9",
        BUB_TELEGRAM_TOKEN: telegram.token,
        BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
        ...env,
      }),
    });
    return gateway;
  }

  async function replyTo(chatId: number, needle: string): Promise<void> {
    await telegram!.waitForCalls("sendMessage", 1, {
      where: (call) =>
        Number(call.params.chat_id) === chatId && String(call.params.text).includes(needle),
      timeoutMs: 20_000,
    });
  }

  test("with no allow_users and no allow_chats the gateway refuses to start and says how to fix it", async () => {
    const child = await start({});
    const code = await child.exited(30_000);
    assert.notEqual(code, 0);
    assert.match(child.stderr, /Refusing to start the Telegram channel/);
    assert.match(child.stderr, /BUB_TELEGRAM_ALLOW_USERS/);
    assert.match(child.stderr, /BUB_TELEGRAM_ALLOW_CHATS/);
    assert.match(child.stderr, /"\*"/);
    assert.equal(telegram!.callsOf("getUpdates").length, 0);
  });

  test("a stranger's ,touch is refused and creates nothing; an allowlisted user's runs", async () => {
    const child = await start({ BUB_TELEGRAM_ALLOW_USERS: "ada" });
    await child.waitFor("serving telegram");
    await telegram!.waitForCalls("getUpdates");
    const stranger = telegram!.makeUser(2002, "mallory");
    telegram!.pushText(",touch stranger.txt", { from: stranger });
    await replyTo(stranger.id, "Access denied.");
    telegram!.pushText(",touch ada.txt");
    for (let i = 0; i < 200 && !existsSync(join(dirs!.workspace, "ada.txt")); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(existsSync(join(dirs!.workspace, "ada.txt")), "the allowed user's command ran");
    assert.ok(!existsSync(join(dirs!.workspace, "stranger.txt")), "the stranger's did not");
  });

  test('allow_users "*" serves everyone with a warning at start, but comma commands stay refused', async () => {
    const child = await start({ BUB_TELEGRAM_ALLOW_USERS: "*" });
    await child.waitFor("serving telegram");
    await telegram!.waitForCalls("getUpdates");
    assert.match(child.stderr, /allow_users="\*": every Telegram user may talk to the bot/);
    telegram!.pushText(",touch star.txt");
    await replyTo(telegram!.user.id, COMMAND_DENIED_MESSAGE);
    assert.ok(!existsSync(join(dirs!.workspace, "star.txt")));
  });
});
