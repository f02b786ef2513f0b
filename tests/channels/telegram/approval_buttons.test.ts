/**
 * The Telegram channel's side of approval buttons against the fake Bot API: an answer naming two
 * requests gets one labelled row per request; a listed user's press becomes the comma command
 * with the sender and the press; the answer to it (with its outcome) answers the press and
 * edits only that request's row away; a press from a user not on allow_users is answered "not
 * allowed" and the handler never sees it.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChannelMessage } from "../../../src/kernel/channel_message.ts";
import { startBot } from "./_fixtures.ts";

const A = "aaaaaaaaaa";
const B = "bbbbbbbbbb";

describe("Telegram approval buttons (channel)", () => {
  test("two requests get two rows; the owner's press runs ,approve as the owner; its answer edits only that row away", async () => {
    await using bot = await startBot({ allowUsers: ["1001"] });
    const { server, channel } = bot;
    await channel.send(
      new ChannelMessage({
        sessionId: "telegram:1001",
        channel: "telegram",
        chatId: "1001",
        content: `Approval needed ... ,approve ${A} ... ,approve ${B}`,
        context: { approval_requests: [{ id: A, tool: "bash" }, { id: B, tool: "fs.write" }] },
      }),
    );
    const [asked] = server.sentMessages(1001);
    const rows = (asked!.reply_markup as { inline_keyboard: { text: string }[][] })
      .inline_keyboard;
    assert.deepEqual(rows.map((row) => row.map((button) => button.text)), [
      ["Approve bash", "Always bash", "Deny bash"],
      ["Approve fs.write", "Always fs.write", "Deny fs.write"],
    ]);

    const queryId = server.pushCallbackQuery(asked!.message_id as number, `,deny ${B}`);
    const [command] = await bot.received(1);
    assert.equal(command!.content, `,deny ${B}`);
    assert.equal(command!.kind, "command");
    assert.equal(command!.sessionId, "telegram:1001");
    assert.equal(command!.context.sender_id, "1001");
    const press = command!.context._reply_context as Record<string, unknown>;
    assert.equal(press.callback_query_id, queryId);
    assert.equal(server.callsOf("answerCallbackQuery").length, 0, "answered only with the outcome");

    // What the builtin's renderOutbound sends back: the answer with the press and the outcome.
    await channel.send(
      new ChannelMessage({
        sessionId: "telegram:1001",
        channel: "telegram",
        chatId: "1001",
        content: `Denied ${B}.`,
        kind: "command",
        context: {
          _reply_context: press,
          approval_outcome: { id: B, status: "denied", by: "denied by 1001" },
        },
      }),
    );
    const [answer] = server.callsOf("answerCallbackQuery");
    assert.deepEqual([answer!.params.callback_query_id, answer!.params.text], [queryId, "Denied."]);
    const edited = server.sentMessages(1001)[0]!;
    assert.match(String(edited.text), /,approve bbbbbbbbbb\n\n❌ denied by @ada$/);
    const left = (edited.reply_markup as { inline_keyboard: { callback_data: string }[][] })
      .inline_keyboard;
    assert.deepEqual(left.flat().map((button) => button.callback_data), [
      `,approve ${A}`,
      `,approve ${A} always`,
      `,deny ${A}`,
    ]);
    assert.equal(server.sentMessages(1001).at(-1)!.text, `Denied ${B}.`);
  });

  test("a press from a user not on allow_users is answered 'not allowed' and never reaches the handler", async () => {
    await using bot = await startBot({ allowUsers: ["1001"] });
    const { server, channel } = bot;
    await channel.send(
      new ChannelMessage({
        sessionId: "telegram:1001",
        channel: "telegram",
        chatId: "1001",
        content: `,approve ${A}`,
        context: { approval_requests: [{ id: A, tool: "bash" }] },
      }),
    );
    const [asked] = server.sentMessages(1001);
    const queryId = server.pushCallbackQuery(asked!.message_id as number, `,approve ${A}`, {
      from: server.makeUser(3003, "mallory"),
    });
    const [answer] = await server.waitForCalls("answerCallbackQuery");
    assert.equal(answer!.params.callback_query_id, queryId);
    assert.match(String(answer!.params.text), /Not allowed/);
    // A later message from the owner arrives first in the inbox: the press never got there.
    server.pushText("still here");
    const [first] = await bot.received(1);
    assert.match(first!.content, /still here/);
    assert.equal(server.callsOf("editMessageText").length, 0);
    assert.ok(server.sentMessages(1001)[0]!.reply_markup, "the buttons stay");
  });
});
