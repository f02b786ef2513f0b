/**
 * The builtin's `onError` notice carries the inbound's `_reply_context` (a pressed button's
 * press), so the channel can answer the press with the error; a message without one gets a
 * notice without it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Envelope } from "../../src/kernel/envelope.ts";
import { fieldOf } from "../../src/kernel/envelope.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";

test("a failing turn's error notice carries the press of the message that started it", async () => {
  const sent: Envelope[] = [];
  await using fx = await turnFixture({
    script: [],
    plugins: [{
      name: "broken-model",
      runModelStream: () => {
        throw new Error("boom");
      },
      dispatchOutbound: ({ message }: { message: Envelope }) => void sent.push(message),
    }],
  });
  const press = { callback_query_id: "q1", chat_id: 42, message_id: 7, id: "aaaaaaaaaa" };
  await fx.turn({
    channel: "telegram",
    chatId: "42",
    content: "hi",
    context: { sender_id: "42", _reply_context: press },
  }).catch(() => {});
  await fx.turn({ channel: "telegram", chatId: "42", content: "again" }).catch(() => {});
  assert.equal(sent.length, 2);
  assert.equal(fieldOf(sent[0], "kind", null), "error");
  assert.equal(fieldOf(sent[0], "content", null), "An error occurred at stage 'turn': boom");
  const context = fieldOf(sent[0], "context", null) as Record<string, unknown>;
  assert.deepEqual(context._reply_context, press);
  const plain = (fieldOf(sent[1], "context", null) ?? {}) as Record<string, unknown>;
  assert.equal(plain._reply_context, undefined);
});
