/**
 * Context copies vouched for as untouched (issue 13: the model runner vouches for the history
 * copies Bub's own `readMessages` made when no hook and no outside client can reach them): the
 * body then takes the kept run without comparing each copy, and must be byte for byte the body
 * built from plain copies; a vouch holds only for the array vouched for and only until cleared,
 * and only arrays of copies straight from the tape's context can be vouched for.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatRequestBody } from "../../src/agent/_chat_body.ts";
import type { ChatMessage, ModelRequest } from "../../src/agent/model_client.ts";
import { parseModelId } from "../../src/agent/provider_presets.ts";
import { ProviderModelClient } from "../../src/agent/providers.ts";
import { ModelRunner } from "../../src/agent/model_runner.ts";
import type { ModelClient } from "../../src/agent/model_client.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { selectMessages } from "../../src/tape/context.ts";
import { sessionTape } from "./_session_tape.ts";
import {
  clearVouch,
  keepsMessages,
  vouchCopies,
  vouchedRun,
} from "../../src/tape/_handed_copies.ts";

const ID = parseModelId("openai:bench");

function body(messages: Record<string, unknown>[]): string {
  const request: ModelRequest = {
    model: "openai:bench",
    messages: messages as unknown as ChatMessage[],
    maxTokens: 64,
  };
  return chatRequestBody("openai-chat", ID, request)!;
}

test("a vouched run of context copies gives the body of plain copies", async () => {
  const tape = await sessionTape(10);
  for (let call = 0; call < 3; call++) {
    const history = await tape.readMessages();
    const messages = [{ role: "system", content: "sys" }, ...history, {
      role: "user",
      content: "next",
    }];
    const expected = body(JSON.parse(JSON.stringify(messages)));
    assert.equal(vouchCopies(messages, 1, history), true);
    assert.equal(vouchedRun(messages)?.count, history.length);
    try {
      assert.equal(body(messages), expected);
    } finally {
      clearVouch();
    }
    assert.equal(vouchedRun(messages), null);
    await tape.store.append("a__b", messageEntry({ role: "user", content: `more ${call}` }));
  }
});

test("a vouch holds for the array vouched for only", async () => {
  const tape = await sessionTape(6);
  const history = await tape.readMessages();
  const messages = [...history];
  assert.equal(vouchCopies(messages, 0, history), true);
  try {
    assert.equal(vouchedRun([...history]), null);
    // Another array with a changed copy is compared, not taken as vouched.
    const other = history.map((message) => ({ ...message }));
    other[3] = { ...other[3], content: "changed" };
    assert.equal(body(other), body(JSON.parse(JSON.stringify(other))));
  } finally {
    clearVouch();
  }
});

test("only copies straight from the tape's context, where they are said to be, are vouched for", async () => {
  const tape = await sessionTape(6);
  const history = await tape.readMessages();
  // A selection's copies (a user's selector may change them before the runner gets them).
  const selected = selectMessages([messageEntry({ role: "user", content: "x" })]);
  assert.equal(vouchCopies(selected, 0, selected), false);
  // Copies not at the place given.
  assert.equal(vouchCopies([{ role: "system", content: "s" }, ...history], 0, history), false);
  assert.equal(vouchedRun(history), null);
});

test("Bub's own provider client may be handed vouched copies, a subclass of it not", () => {
  assert.equal(keepsMessages(new ProviderModelClient()), true);
  class Custom extends ProviderModelClient {}
  assert.equal(keepsMessages(new Custom()), false);
});

/** The messages a runner sends for `prompt` on a tape of `turns` turns, through `client`. */
async function sent(
  client: (inner: ModelClient) => ModelClient,
): Promise<{ sent: unknown; history: Record<string, unknown>[] }> {
  await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
  const tape = await sessionTape(10);
  const history = JSON.parse(JSON.stringify(await tape.readMessages()));
  const runner = new ModelRunner(
    client(new ProviderModelClient({ apiKey: "k", apiBase: server.url })),
    null,
    { model: "openai:gpt-test" },
  );
  const stream = runner.run({
    tape,
    model: "openai:gpt-test",
    tools: [],
    systemPrompt: "sys",
    prompt: "hi",
    state: {},
  });
  for await (const _ of stream) { /* drain */ }
  return { sent: (server.requests[0]!.body as { messages: unknown }).messages, history };
}

/** The messages of the body built from plain copies of the request's messages. */
function expectedMessages(history: Record<string, unknown>[]): unknown {
  const plain = [{ role: "system", content: "sys" }, ...history, { role: "user", content: "hi" }];
  return JSON.parse(body(JSON.parse(JSON.stringify(plain)))).messages;
}

test("a runner with Bub's own client and no hooks sends the tape's history as it is", async () => {
  const { sent: messages, history } = await sent((inner) => inner);
  assert.deepEqual(messages, expectedMessages(history));
});

test("a copy an outside client changes before the body is built is sent as changed", async () => {
  const { sent: messages, history } = await sent((inner) => ({
    specificationVersion: inner.specificationVersion,
    stream(request, options) {
      (request.messages[5] as unknown as Record<string, unknown>).content = "changed";
      return inner.stream(request, options);
    },
  }));
  history[4] = { ...history[4], content: "changed" };
  assert.deepEqual(messages, expectedMessages(history));
});
