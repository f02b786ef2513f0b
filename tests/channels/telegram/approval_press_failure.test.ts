/**
 * A pressed approval button whose command fails is still answered: the framework's error notice
 * carries the press back (`_reply_context`), and the channel answers the callback query with a
 * short error text instead of leaving Telegram's spinner running until it times out.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChannelMessage } from "../../../src/kernel/channel_message.ts";
import { failedPressAnswer } from "../../../src/channels/telegram/_approvals.ts";
import { startBot } from "./_fixtures.ts";

const A = "aaaaaaaaaa";

test("a press whose command fails is answered with the error's first line; the buttons stay", async () => {
  await using bot = await startBot({ allowUsers: ["1001"] });
  const { server, channel } = bot;
  await channel.send(
    new ChannelMessage({
      sessionId: "telegram:1001",
      channel: "telegram",
      chatId: "1001",
      content: `Approval needed ... ,approve ${A}`,
      context: { approval_requests: [{ id: A, tool: "bash" }] },
    }),
  );
  const [asked] = server.sentMessages(1001);
  const queryId = server.pushCallbackQuery(asked!.message_id as number, `,approve ${A}`);
  const [command] = await bot.received(1);
  const press = command!.context._reply_context;
  assert.ok(press);
  // What the builtin's onError sends when the command throws: the notice, with the press.
  const error = "An error occurred at stage 'turn': [temporary] Cannot record the approval " +
    "decision: the tape of session telegram:1001 kept changing (5 attempts); try again";
  await channel.send(
    new ChannelMessage({
      sessionId: "telegram:1001",
      channel: "telegram",
      chatId: "1001",
      content: error,
      kind: "error",
      context: { _reply_context: press },
    }),
  );
  const [answer] = server.callsOf("answerCallbackQuery");
  assert.equal(answer?.params.callback_query_id, queryId);
  assert.equal(answer?.params.text, `Failed: ${error}`);
  assert.equal(server.callsOf("editMessageText").length, 0);
  assert.ok(server.sentMessages(1001)[0]!.reply_markup, "the buttons stay for another try");
  assert.equal(server.sentMessages(1001).at(-1)!.text, error);
});

test("a failed press's answer: the first line, or a hint when there is no text", () => {
  assert.equal(failedPressAnswer("boom\nstack"), "Failed: boom");
  assert.equal(failedPressAnswer("  "), "Something went wrong; try ,approvals in the chat.");
  const long = failedPressAnswer("x".repeat(500));
  assert.equal(long.length, 200);
  assert.ok(long.endsWith("…"));
});
