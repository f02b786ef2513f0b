import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { startBot } from "./_fixtures.ts";

type Lifespan = AsyncDisposable & { enter(): Promise<void> };

describe("Telegram typing lifespan", () => {
  test("the lifespan sends typing actions to its chat from enter until disposed; nested use for the chat is a no-op", async () => {
    await using bot = await startBot({ typingIntervalSeconds: 0.02 });
    bot.server.pushText("hello");
    bot.server.pushText("again");
    const [first, second] = await bot.received(2);
    assert.equal(bot.server.callsOf("sendChatAction").length, 0, "nothing before enter");
    const outer = first!.lifespan as Lifespan;
    const inner = second!.lifespan as Lifespan;
    await outer.enter();
    const actions = await bot.server.waitForCalls("sendChatAction", 3);
    for (const call of actions) {
      assert.equal(call.params.action, "typing");
      assert.equal(call.params.chat_id, "1001");
    }
    await inner.enter();
    await inner[Symbol.asyncDispose]();
    const afterInner = bot.server.callsOf("sendChatAction").length;
    await bot.server.waitForCalls("sendChatAction", afterInner + 2);
    await outer[Symbol.asyncDispose]();
    // A request already on the wire when the loop is cancelled may still land; nothing after it.
    const afterOuter = bot.server.callsOf("sendChatAction").length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const settled = bot.server.callsOf("sendChatAction").length;
    assert.ok(settled <= afterOuter + 1, `${settled - afterOuter} actions after disposal`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(bot.server.callsOf("sendChatAction").length, settled);
  });
});
