/**
 * Whole turns through the builtin plugin over a PostgreSQL tape store that goes down (a real
 * server stopped and started): a turn whose model answered while the server was stopping still
 * has its entries stored once the server is back, and a message that arrives while it is down is
 * answered and stored after recovery. Nothing is lost, nothing is stored twice.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChannelManager } from "../../src/channels/manager.ts";
import { MemoryChannel } from "../../src/channels/memory_channel.ts";
import type { MessageHandler } from "../../src/kernel/channel.ts";
import type { TapeEntry } from "../../src/tape/entry.ts";
import { mockReply } from "../../src/testing/mod.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";
import { until } from "./_helpers.ts";
import { startOwnPgServer } from "./_pg_server.ts";
import { postgresUrl } from "./_postgres.ts";

const available = postgresUrl("turns over a PostgreSQL outage");

/** `role: text` of each message (a channel's user message: its text after the context lines). */
function conversation(entries: readonly TapeEntry[]): string[] {
  return entries.filter((entry) => entry.kind === "message")
    .map((entry) => `${entry.payload.role}: ${String(entry.payload.content).split("\n").at(-1)}`);
}

if (available) {
  test("PostgreSQL down mid-turn and between turns: every turn is answered and stored once", async () => {
    await using server = await startOwnPgServer();
    let restarted: Promise<void> = Promise.resolve();
    await using fixture = await turnFixture({
      script: [
        mockReply.text("first answer"),
        // The second turn's model call: the database goes down while the model answers.
        async () => {
          await server.stop();
          restarted = new Promise((resolve) => setTimeout(resolve, 1_500)).then(() =>
            server.start()
          );
          return mockReply.text("answered while the database was down");
        },
        mockReply.text("answer after recovery"),
      ],
      env: { BUB_TAPE_STORE: server.url, BUB_TAPE_STORE_RETRY_SECONDS: "120" },
    });
    assert.equal((await fixture.turn("one")).modelOutput, "first answer");

    // The answer of this turn is produced with the server stopping; its tape entries are saved
    // once the server is back (the turn ends then).
    const second = await fixture.turn("two");
    assert.equal(second.modelOutput, "answered while the database was down");
    await restarted;

    // A message while the server is down: its turn waits for the store and is answered.
    await server.stop();
    const third = fixture.turn("three");
    third.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 500));
    await server.start();
    assert.equal((await third).modelOutput, "answer after recovery");

    const entries = await fixture.entries();
    assert.deepEqual(conversation(entries), [
      "user: one",
      "assistant: first answer",
      "user: two",
      "assistant: answered while the database was down",
      "user: three",
      "assistant: answer after recovery",
    ]);
    assert.deepEqual(entries.map((entry) => entry.id), entries.map((_, i) => i + 1));
  });

  test("a channel's message for a session whose turn waits to save is queued and answered after recovery", async () => {
    await using server = await startOwnPgServer();
    let channel: MemoryChannel | null = null;
    let saving = false;
    await using fixture = await turnFixture({
      script: [
        async () => {
          await server.stop();
          saving = true;
          return mockReply.text("first answer");
        },
        mockReply.text("second answer"),
      ],
      env: { BUB_TAPE_STORE: server.url, BUB_TAPE_STORE_RETRY_SECONDS: "120" },
      plugins: [{
        name: "memory-channel",
        provideChannels: ({ messageHandler }: { messageHandler: MessageHandler }) => {
          channel = new MemoryChannel(messageHandler);
          return [channel];
        },
      }],
    });
    const manager = new ChannelManager(fixture.bub as never, { enabledChannels: "memory" });
    const stop = new AbortController();
    const listening = manager.listenAndRun({ signal: stop.signal });
    try {
      await until(() => channel?.running === true, "the channel");
      const memory = channel!;
      await memory.push({ chatId: "1", content: "one" });
      // The model answered with the database stopped: the turn waits to save its entries.
      await until(() => saving, "the first answer");
      await memory.push({ chatId: "1", content: "two" });
      await new Promise((resolve) => setTimeout(resolve, 500));
      await server.start();
      const sent = (await memory.waitForSent(2)).map((message) => message.content);
      assert.deepEqual(sent, ["first answer", "second answer"]);
      assert.deepEqual(conversation(await fixture.entries("memory:1")), [
        "user: one",
        "assistant: first answer",
        "user: two",
        "assistant: second answer",
      ]);
    } finally {
      stop.abort();
      await listening;
    }
  });
}
