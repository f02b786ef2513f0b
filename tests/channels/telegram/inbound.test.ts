import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { contentJson, startBot } from "./_fixtures.ts";

describe("Telegram channel inbound", () => {
  test("a private text message from an allowlisted user reaches the handler as a telegram:<chat_id> message with JSON content, outputChannel null and isActive", async () => {
    await using bot = await startBot({ allowUsers: ["ada"] });
    const sent = bot.server.pushText("Grüße, bub 👋");
    const [message] = await bot.received(1);
    assert.ok(message);
    assert.equal(message.sessionId, `telegram:${bot.server.user.id}`);
    assert.equal(message.channel, "telegram");
    assert.equal(message.chatId, String(bot.server.user.id));
    assert.equal(message.outputChannel, "null");
    assert.equal(message.kind, "normal");
    assert.equal(message.isActive, true);
    assert.deepEqual(contentJson(message), {
      message: "Grüße, bub 👋",
      message_id: sent.message_id,
      type: "text",
      username: "ada",
      full_name: "Ada Lovelace",
      sender_id: "1001",
      sender_is_bot: false,
      date: sent.date,
    });
    assert.ok(message.content.includes("Grüße, bub 👋"), "non-ASCII text stays raw in the JSON");
    assert.equal(typeof (message.lifespan as { enter?: unknown })?.enter, "function");
    assert.equal(message.context.channel, "$telegram");
  });

  test("polling uses drop_pending_updates and allowed_updates [message, callback_query]", async () => {
    await using bot = await startBot();
    const [webhook] = bot.server.callsOf("deleteWebhook");
    assert.equal(webhook?.params.drop_pending_updates, true);
    const [poll] = bot.server.callsOf("getUpdates");
    assert.deepEqual(poll?.params.allowed_updates, ["message", "callback_query"]);
    assert.equal(poll?.params.timeout, 30);
  });

  test("a user allowed by numeric id passes; a stranger gets 'Access denied.' and nothing reaches the handler", async () => {
    await using bot = await startBot({ allowUsers: ["2002"] });
    const stranger = bot.server.makeUser(3003, "mallory");
    bot.server.pushText("let me in", { from: stranger, chat: bot.server.privateChat(stranger) });
    const [denied] = await bot.server.waitForCalls("sendMessage");
    assert.equal(denied?.params.text, "Access denied.");
    assert.equal(denied?.params.chat_id, 3003);
    const friend = bot.server.makeUser(2002);
    bot.server.pushText("hello", { from: friend, chat: bot.server.privateChat(friend) });
    const [message] = await bot.received(1);
    assert.equal(contentJson(message!).message, "hello");
    assert.equal(bot.inbox.length, 1);
  });

  test("a message from a chat outside allowChats is ignored silently", async () => {
    await using bot = await startBot({ allowChats: ["-100200"] });
    bot.server.pushText("private hello");
    bot.server.pushText("bub, group hello", { chat: bot.server.groupChat(-100200) });
    const [message] = await bot.received(1);
    assert.equal(contentJson(message!).message, "bub, group hello");
    assert.equal(bot.inbox.length, 1);
    assert.equal(bot.server.callsOf("sendMessage").length, 0);
  });

  test("/start replies online, or refuses a chat outside allowChats; other /commands and a bare /bub are ignored", async () => {
    await using bot = await startBot({ allowChats: [String(1001)] });
    bot.server.pushText("/start");
    const [online] = await bot.server.waitForCalls("sendMessage");
    assert.equal(online?.params.text, "Bub is online. Send text to start.");
    const other = bot.server.makeUser(4004);
    bot.server.pushText("/start", { from: other, chat: bot.server.privateChat(other) });
    const [, refused] = await bot.server.waitForCalls("sendMessage", 2);
    assert.equal(
      refused?.params.text,
      "You are not allowed to chat with me. Please deploy your own instance of Bub.",
    );
    bot.server.pushText("/help");
    bot.server.pushText("/bub");
    bot.server.pushText("/bub what is up");
    const [message] = await bot.received(1);
    assert.equal(contentJson(message!).message, "what is up");
    assert.equal(bot.inbox.length, 1);
  });

  test("in a group, a message without mention is inactive and one mentioning bub is active", async () => {
    await using bot = await startBot();
    const group = bot.server.groupChat();
    bot.server.pushText("just chatting", { chat: group });
    bot.server.pushText("hey Bub, help", { chat: group });
    const [plain, mention] = await bot.received(2);
    assert.equal(plain?.isActive, false);
    assert.equal(plain?.sessionId, "telegram:-100200");
    assert.equal(mention?.isActive, true);
  });

  test("a reply to the bot is active and carries reply_to_message parsed like a message", async () => {
    await using bot = await startBot();
    const group = bot.server.groupChat(-500, "supergroup");
    const original = bot.server.buildMessage({ text: "I am the bot" }, {
      from: bot.server.bot,
      chat: group,
    });
    bot.server.pushText("thanks", { chat: group, replyTo: original });
    const [message] = await bot.received(1);
    assert.equal(message?.isActive, true);
    assert.deepEqual(contentJson(message!).reply_to_message, {
      message: "I am the bot",
      message_id: original.message_id,
      type: "text",
      username: "bub_test_bot",
      full_name: "Bub",
      sender_id: String(bot.server.bot.id),
      sender_is_bot: true,
      date: original.date,
    });
  });

  test("a comma command is a command message with outputChannel telegram, trimmed, inactive, without lifespan", async () => {
    await using bot = await startBot({ allowUsers: ["ada"] });
    bot.server.pushText("  ,help  ");
    bot.server.pushText("/bub ,tape.info");
    const [help, viaBub] = await bot.received(2);
    assert.equal(help?.content, ",help");
    assert.equal(help?.outputChannel, "telegram");
    assert.equal(help?.kind, "command");
    assert.equal(help?.isActive, false);
    assert.equal(help?.lifespan, null);
    assert.equal(help?.sessionId, "telegram:1001");
    assert.equal(viaBub?.content, ",tape.info");
    assert.equal(viaBub?.outputChannel, "telegram");
  });

  test("links are the unique URLs of text_link and url entities", async () => {
    await using bot = await startBot();
    const text = "see https://a.example/x and docs and https://a.example/x";
    bot.server.pushText(text, {
      entities: [
        { type: "url", offset: 4, length: 19 },
        { type: "text_link", offset: 28, length: 4, url: "https://docs.example/" },
        { type: "url", offset: 37, length: 19 },
      ],
    });
    const [message] = await bot.received(1);
    assert.deepEqual(contentJson(message!).links, ["https://a.example/x", "https://docs.example/"]);
  });

  test("malformed updates (missing chat, missing fields, non-object message) do not stop polling", async () => {
    await using bot = await startBot();
    bot.server.pushUpdate({ message: { message_id: 1 } });
    bot.server.pushUpdate({ message: { chat: { type: "private" }, message_id: 2 } });
    bot.server.pushUpdate({ message: "garbage" });
    bot.server.pushUpdate({
      message: { message_id: 3, chat: { id: 1001, type: "private" }, text: "no sender" },
    });
    bot.server.pushUpdate({ edited_message: { message_id: 9 } });
    bot.server.pushUpdate({
      message: { message_id: 4, chat: { id: 1001, type: "private" }, from: bot.server.user },
    });
    bot.server.pushText("still alive");
    const [unsupported, alive] = await bot.received(2);
    assert.equal(contentJson(unsupported!).message, "[Unsupported message type: unknown]");
    assert.equal(unsupported?.isActive, false);
    assert.equal(contentJson(alive!).message, "still alive");
    assert.equal(bot.channel.polling, true);
  });
});
