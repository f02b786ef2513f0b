/**
 * The Telegram channel consumes a streamed turn's events (`streamEvents`, used with
 * `stream_output`): every event is re-yielded unchanged, and the chat shows "typing" while the
 * stream runs (tools included) and no longer once it ended.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChannelMessage } from "../../../src/kernel/channel_message.ts";
import type { StreamEvent } from "../../../src/kernel/stream_events.ts";
import { startBot } from "./_fixtures.ts";

describe("Telegram streamEvents", () => {
  test("re-yields the events and shows typing in the message's chat from the first event to the end", async () => {
    await using bot = await startBot({ typingIntervalSeconds: 0.02 });
    const message = new ChannelMessage({
      sessionId: "telegram:4242",
      channel: "telegram",
      chatId: "4242",
      content: ",help",
      kind: "command",
    });
    const start = { call_id: "c1", name: "web.fetch", arguments: { url: "http://127.0.0.1/" } };
    const events: StreamEvent[] = [
      { kind: "step_start", data: { step: 1 } },
      { kind: "tool_start", data: start },
      {
        kind: "tool_end",
        data: { ...start, ok: true, result: "page", error: null, duration_ms: 5 },
      },
      { kind: "text", data: { delta: "done" } },
      { kind: "step_end", data: { step: 1, status: "ok", elapsed_ms: 9 } },
    ];
    let typingDuringTool = 0;
    async function* turn(): AsyncGenerator<StreamEvent> {
      for (const event of events) {
        yield event;
        if (event.kind === "tool_start") {
          const calls = await bot.server.waitForCalls("sendChatAction", 2);
          typingDuringTool = calls.length;
        }
      }
    }
    const seen: StreamEvent[] = [];
    for await (const event of bot.channel.streamEvents(message, turn())) seen.push(event);
    assert.deepEqual(seen, events);
    assert.ok(typingDuringTool >= 2, "typing was shown while the tool ran");
    for (const call of bot.server.callsOf("sendChatAction")) {
      assert.equal(call.params.chat_id, "4242");
      assert.equal(call.params.action, "typing");
    }
    const after = bot.server.callsOf("sendChatAction").length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(bot.server.callsOf("sendChatAction").length <= after + 1, "typing stopped");
  });
});
