import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChannelMessage } from "../../../src/kernel/channel_message.ts";
import { TelegramChannel } from "../../../src/channels/telegram/telegram_channel.ts";
import { FakeTelegramServer } from "../../../src/testing/fake_telegram.ts";
import { startBot } from "./_fixtures.ts";

function outbound(content: string, chatId = "1001"): ChannelMessage {
  return new ChannelMessage({
    sessionId: `telegram:${chatId}`,
    channel: "telegram",
    chatId,
    content,
  });
}

describe("Telegram channel outbound", () => {
  test("send of a 10 000-character message arrives split in order, each piece at most 4096 characters, cut at newlines", async () => {
    await using server = await FakeTelegramServer.start();
    const channel = new TelegramChannel({
      handler: () => Promise.resolve(),
      token: server.token,
      apiRoot: server.apiRoot,
    });
    const lines = Array.from(
      { length: 100 },
      (_, i) => `${String(i).padStart(3, "0")} ${"x".repeat(95)}`,
    );
    const text = lines.join("\n");
    assert.equal(text.length, 9999);
    await channel.send(outbound(text));
    const sent = server.callsOf("sendMessage");
    assert.equal(sent.length, 3);
    const pieces = sent.map((call) => String(call.params.text));
    for (const piece of pieces) assert.ok(piece.length <= 4096, `piece of ${piece.length} chars`);
    assert.equal(pieces.join(""), text);
    for (const piece of pieces.slice(0, -1)) assert.ok(piece.endsWith("\n"), "cut after a newline");
    for (const piece of pieces) {
      assert.match(piece, /^\d{3} x/, "every piece starts at a line start");
    }
    assert.equal(sent[0]?.params.chat_id, "1001");
    assert.equal(sent[0]?.params.parse_mode, undefined);
  });

  test("send of a long text without newlines is cut hard at 4096", async () => {
    await using server = await FakeTelegramServer.start();
    const channel = new TelegramChannel({
      handler: () => Promise.resolve(),
      token: server.token,
      apiRoot: server.apiRoot,
    });
    const text = "y".repeat(10_000);
    await channel.send(outbound(text));
    const lengths = server.callsOf("sendMessage").map((call) => String(call.params.text).length);
    assert.deepEqual(lengths, [4096, 4096, 1808]);
  });

  test("send extracts the message field of JSON content, sends other content raw and skips blank text", async () => {
    await using server = await FakeTelegramServer.start();
    const channel = new TelegramChannel({
      handler: () => Promise.resolve(),
      token: server.token,
      apiRoot: server.apiRoot,
    });
    await channel.send(outbound(JSON.stringify({ message: "from json", message_id: 3 })));
    await channel.send(outbound("   \n "));
    await channel.send(outbound(JSON.stringify({ message: "  " })));
    await channel.send(outbound("[1, 2]"));
    await channel.send(outbound("plain text"));
    assert.deepEqual(server.callsOf("sendMessage").map((call) => call.params.text), [
      "from json",
      "[1, 2]",
      "plain text",
    ]);
  });

  test("a rejected send surfaces the Bot API error", async () => {
    await using server = await FakeTelegramServer.start();
    const channel = new TelegramChannel({
      handler: () => Promise.resolve(),
      token: "999:WRONG",
      apiRoot: server.apiRoot,
    });
    await assert.rejects(channel.send(outbound("hi")), /Unauthorized/);
  });

  test("bad options are clear errors naming the option and the value", () => {
    const handler = () => Promise.resolve();
    assert.throws(() => new TelegramChannel({ handler, token: "t", pollTimeoutSeconds: -1 }), {
      name: "RangeError",
      message: "Telegram channel option pollTimeoutSeconds must be a positive number, got -1",
    });
    assert.throws(() => new TelegramChannel({ handler: null as never, token: "t" }), {
      name: "TypeError",
    });
    const disabled = new TelegramChannel({ handler, token: "" });
    return assert.rejects(disabled.send(outbound("hi")), /bot token is empty/);
  });

  test("stop ends polling, cancels typing loops and never throws, even when never started", async () => {
    const idle = new TelegramChannel({ handler: () => Promise.resolve(), token: "" });
    assert.equal(idle.enabled, false);
    assert.equal(idle.needsDebounce, true);
    assert.equal(idle.name, "telegram");
    await idle.stop();
    await using bot = await startBot({ typingIntervalSeconds: 0.02 });
    const lifespan = bot.channel.typingLifespan("1001");
    await lifespan.enter();
    await bot.server.waitForCalls("sendChatAction", 2);
    await bot.channel.stop();
    assert.equal(bot.channel.polling, false);
    const polls = bot.server.callsOf("getUpdates").length;
    const typing = bot.server.callsOf("sendChatAction").length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const settled = bot.server.callsOf("sendChatAction").length;
    assert.ok(settled <= typing + 1, "at most the request already on the wire lands");
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(bot.server.callsOf("sendChatAction").length, settled);
    assert.equal(bot.server.callsOf("getUpdates").length, polls);
    await lifespan[Symbol.asyncDispose]();
  });
});
