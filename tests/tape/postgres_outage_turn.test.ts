/**
 * Whole turns through the builtin plugin over a PostgreSQL tape store that goes down (a real
 * server stopped and started): a turn whose model answered while the server was stopping still
 * has its entries stored once the server is back, and a message that arrives while it is down is
 * answered and stored after recovery. Nothing is lost, nothing is stored twice.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TapeEntry } from "../../src/tape/entry.ts";
import { mockReply } from "../../src/testing/mod.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";
import { startOwnPgServer } from "./_pg_server.ts";
import { postgresUrl } from "./_postgres.ts";

const available = postgresUrl("turns over a PostgreSQL outage");

function conversation(entries: readonly TapeEntry[]): string[] {
  return entries.filter((entry) => entry.kind === "message")
    .map((entry) => `${entry.payload.role}: ${entry.payload.content}`);
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
}
