import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Message, UserFromGetMe } from "grammy/types";
import {
  AccessPolicy,
  isActiveMessage,
  parseAllowList,
} from "../../../src/channels/telegram/_access.ts";

const bot = {
  id: 900,
  is_bot: true,
  first_name: "Helper",
  username: "helper_bot",
} as UserFromGetMe;
const human = { id: 5, is_bot: false, first_name: "Eve" };
const group = { id: -1, type: "group", title: "g" };

function msg(fields: Record<string, unknown>, chat: Record<string, unknown> = group): Message {
  return { message_id: 1, date: 1, chat, from: human, ...fields } as unknown as Message;
}

describe("Telegram access and filtering", () => {
  test("the filter accepts every private message and, in groups, only mentions of the bot or replies to it", () => {
    assert.equal(isActiveMessage(msg({ text: "hello" }, { id: 5, type: "private" }), bot), true);
    assert.equal(isActiveMessage(msg({ text: "hello all" }), bot), false);
    assert.equal(isActiveMessage(msg({ text: "ask BUB" }), bot), true);
    assert.equal(isActiveMessage(msg({ text: "hi @Helper_Bot" }), bot), true);
    const mention = msg({
      text: "@helper_bot x",
      entities: [{ type: "mention", offset: 0, length: 11 }],
    });
    assert.equal(isActiveMessage(mention, bot), true);
    const textMention = msg({
      text: "Helper x",
      entities: [{ type: "text_mention", offset: 0, length: 6, user: bot }],
    });
    assert.equal(isActiveMessage(textMention, bot), true);
    const replyToBot = msg({ text: "ok", reply_to_message: msg({ text: "hi", from: bot }) });
    assert.equal(isActiveMessage(replyToBot, bot), true);
    const replyToHuman = msg({ text: "ok", reply_to_message: msg({ text: "hi" }) });
    assert.equal(isActiveMessage(replyToHuman, bot), false);
    assert.equal(isActiveMessage(msg({ text: "bub?" }, { id: -2, type: "supergroup" }), bot), true);
    assert.equal(isActiveMessage(msg({ text: "bub?" }, { id: -3, type: "channel" }), bot), false);
  });

  test("in groups, media without caption is active only as a reply to the bot; unsupported types never", () => {
    const photo = { photo: [{ file_id: "p" }] };
    assert.equal(isActiveMessage(msg(photo), bot), false);
    assert.equal(
      isActiveMessage(msg({ ...photo, reply_to_message: msg({ text: "x", from: bot }) }), bot),
      true,
    );
    assert.equal(isActiveMessage(msg({ ...photo, caption: "bub look" }), bot), true);
    assert.equal(isActiveMessage(msg({ poll: {} }, { id: 5, type: "private" }), bot), false);
  });

  test("allowlists: users match by numeric id or username; empty lists allow everyone", () => {
    assert.deepEqual(parseAllowList(" 42, ada ,,"), ["42", "ada"]);
    assert.equal(parseAllowList(" , "), null);
    assert.equal(parseAllowList(null), null);
    const policy = new AccessPolicy(["42", "ada"], ["-100"]);
    assert.equal(policy.userAllowed({ id: 42 }), true);
    assert.equal(policy.userAllowed({ id: 7, username: "ada" }), true);
    assert.equal(policy.userAllowed({ id: 7, username: "eve" }), false);
    assert.equal(policy.chatAllowed("-100"), true);
    assert.equal(policy.chatAllowed("5"), false);
    const open = new AccessPolicy(null, []);
    assert.equal(open.userAllowed({ id: 1 }), true);
    assert.equal(open.chatAllowed("anything"), true);
  });
});
