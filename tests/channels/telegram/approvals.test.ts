/**
 * Telegram approval buttons through a real `bub gateway` subprocess, the fake Bot API and the
 * mock model: a turn held by an `approvals:` rule answers in the group with the literal
 * `,approve <id>` / `,deny <id>` and an Approve / Always / Deny inline keyboard; a stranger's
 * press (not on allow_users) and a listed user's who is neither the owner nor an approver are
 * answered "not allowed" and nothing runs; the owner's press runs the command once, answers the
 * callback, edits the message (buttons gone, "approved by @ada") and the resumed answer arrives
 * in the chat; a second press is told "already decided"; an unknown id and a foreign button get
 * a clear callback answer and the gateway goes on.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { FakeTelegramCall } from "../../../src/testing/_fake_telegram_types.ts";
import { FakeTelegramServer } from "../../../src/testing/fake_telegram.ts";
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

describe("Telegram approval buttons through bub gateway", () => {
  let dirs: TempDirs;
  let telegram: FakeTelegramServer;
  let model: MockLlmServer;
  let gateway: Child;
  let effect: string;
  const group = { id: -100200, type: "group" as const, title: "Test group" };
  let approvalMessage: Record<string, unknown>;
  let id: string;

  /** The model: a user message makes it run `bash` (held for approval); a tool result ends it. */
  function script(request: MockRequest): MockReply {
    const messages = (request.body as { messages: { role: string }[] }).messages;
    if (messages.at(-1)!.role === "tool") return mockReply.text("Effect written.");
    return mockReply.toolCall("bash", { command: `echo ran >> ${effect}` });
  }

  before(async () => {
    dirs = tempDirs("bub-telegram-approvals-");
    effect = join(dirs.workspace, "effect.txt");
    telegram = await FakeTelegramServer.start();
    model = await MockLlmServer.start({ script });
    gateway = startChild(runtimeCommand(BIN, ["gateway", "--enable-channel", "telegram"]), {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        BUB_MODEL: "custom:x",
        BUB_API_BASE: model.url,
        BUB_API_KEY: "sk-gateway",
        BUB_TELEGRAM_TOKEN: telegram.token,
        BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
        BUB_TELEGRAM_ALLOW_USERS: "1001,2002",
        BUB_APPROVALS: JSON.stringify([{ tool: "bash", match: "effect", reason: "writes" }]),
        BUB_SANDBOX: "off",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
      }),
    });
    await gateway.waitFor("serving telegram");
    await telegram.waitForCalls("getUpdates");
  });

  after(async () => {
    if (gateway && gateway.process.exitCode === null) gateway.process.kill("SIGTERM");
    await gateway?.exited(10_000).catch(() => gateway.kill());
    await model?.close();
    await telegram?.close();
    dirs?.remove();
  });

  /** The callback answer to callback query `queryId`. */
  async function answerTo(queryId: string): Promise<string> {
    const [call] = await telegram.waitForCalls("answerCallbackQuery", 1, {
      where: (item: FakeTelegramCall) => item.params.callback_query_id === queryId,
      timeoutMs: 30_000,
    });
    return String(call!.params.text ?? "");
  }

  function sentToGroup(): string[] {
    return telegram.callsOf("sendMessage")
      .filter((call) => Number(call.params.chat_id) === group.id)
      .map((call) => String(call.params.text));
  }

  test("polling asks for callback queries too", () => {
    const poll = telegram.callsOf("getUpdates").find((call) => call.params.allowed_updates);
    assert.deepEqual(poll?.params.allowed_updates, ["message", "callback_query"]);
  });

  test("the held turn's answer reaches the chat with the text commands and Approve / Always / Deny buttons", async () => {
    telegram.pushText("bub please write the effect", { chat: group });
    const [sent] = await telegram.waitForCalls("sendMessage", 1, {
      where: (call) =>
        Number(call.params.chat_id) === group.id && /,approve /.test(String(call.params.text)),
      timeoutMs: 30_000,
    });
    const text = String(sent!.params.text);
    id = /,approve ([a-z2-7]{10})\b/.exec(text)![1]!;
    assert.match(text, new RegExp(`,deny ${id}`));
    approvalMessage = telegram.sentMessages(group.id).find((message) => message.text === text)!;
    const keyboard = (approvalMessage.reply_markup as {
      inline_keyboard: { text: string; callback_data: string }[][];
    }).inline_keyboard;
    assert.deepEqual(keyboard, [[
      { text: "Approve", callback_data: `,approve ${id}` },
      { text: "Always", callback_data: `,approve ${id} always` },
      { text: "Deny", callback_data: `,deny ${id}` },
    ]]);
    for (const button of keyboard.flat()) {
      assert.ok(new TextEncoder().encode(button.callback_data).length <= 64);
    }
    assert.equal(existsSync(effect), false);
    assert.equal(model.requests.length, 1);
  });

  test("a stranger's press and a listed non-owner's press are refused; nothing runs", async () => {
    const messageId = approvalMessage.message_id as number;
    const stranger = telegram.pushCallbackQuery(messageId, `,approve ${id}`, {
      from: telegram.makeUser(3003),
    });
    assert.match(await answerTo(stranger), /Not allowed/);
    const other = telegram.pushCallbackQuery(messageId, `,approve ${id}`, {
      from: telegram.makeUser(2002, "bob"),
    });
    assert.match(await answerTo(other), /Not allowed/);
    assert.match(gateway.stderr + gateway.stdout, /approval\.refused/);
    assert.equal(existsSync(effect), false);
    assert.equal(model.requests.length, 1);
    assert.equal(telegram.callsOf("editMessageText").length, 0);
    // The buttons are still there for the owner.
    assert.ok(
      telegram.sentMessages(group.id).find((m) => m.message_id === messageId)!.reply_markup,
    );
  });

  test("the owner's press runs the command once, answers the press, edits the message and the answer arrives", async () => {
    const messageId = approvalMessage.message_id as number;
    const press = telegram.pushCallbackQuery(messageId, `,approve ${id}`);
    assert.equal(await answerTo(press), "Approved.");
    await telegram.waitForCalls("sendMessage", 1, {
      where: (call) =>
        Number(call.params.chat_id) === group.id &&
        String(call.params.text).includes("Effect written."),
      timeoutMs: 30_000,
    });
    assert.equal(readFileSync(effect, "utf8"), "ran\n");
    assert.equal(model.requests.length, 2);
    const edited = telegram.sentMessages(group.id).find((m) => m.message_id === messageId)!;
    assert.equal(edited.reply_markup, undefined);
    assert.match(String(edited.text), /,approve [a-z2-7]{10}[\s\S]*approved by @ada$/);
    assert.ok(sentToGroup().some((text) => text.startsWith(`Approved ${id}.`)));
  });

  test("a second press is told 'already decided' and nothing runs again", async () => {
    const press = telegram.pushCallbackQuery(
      approvalMessage.message_id as number,
      `,approve ${id}`,
    );
    assert.match(await answerTo(press), /^Already decided: approved by 1001/);
    assert.equal(readFileSync(effect, "utf8"), "ran\n");
    assert.equal(model.requests.length, 2);
  });

  test("an unknown id and a foreign button get a clear answer; the gateway goes on", async () => {
    const messageId = approvalMessage.message_id as number;
    const unknown = telegram.pushCallbackQuery(messageId, ",approve aaaaaaaaaa");
    assert.match(await answerTo(unknown), /Unknown or expired approval/);
    const foreign = telegram.pushCallbackQuery(messageId, "something else");
    assert.match(await answerTo(foreign), /does nothing/);
    assert.equal(gateway.process.exitCode, null);
    assert.equal(readFileSync(effect, "utf8"), "ran\n");
  });

  test("SIGTERM stops the gateway cleanly", async () => {
    process.kill(gateway.process.pid!, "SIGTERM");
    assert.equal(await gateway.exited(10_000), 0);
  });
});
