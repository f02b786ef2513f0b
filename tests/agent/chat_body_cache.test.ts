/**
 * The request body reuses each kept context message's JSON (issue 13: a long session's history is
 * serialised once, as bytes): the body (text and bytes) must equal the one built from plain copies
 * of the same messages on every call, and a copy a hook changed (content, tool calls, keys) must be
 * sent as changed. A message the direct body does not cover (non-text user parts, an unknown role)
 * makes both builders answer null (the call then goes through the SDK), whether it is a copy a hook
 * changed, a kept message of the tape, or one of the turn's own.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  chatBodyCovers,
  type ChatProtocol,
  chatRequestBody,
  chatRequestBytes,
} from "../../src/agent/providers/_chat_body.ts";
import type { ChatMessage, ModelRequest } from "../../src/agent/model_client.ts";
import { parseModelId } from "../../src/agent/providers/provider_presets.ts";
import { anchorEntry, messageEntry, toolCallEntry, toolResultEntry } from "../../src/tape/entry.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { Tape } from "../../src/tape/tape.ts";

const ID = parseModelId("openai:bench");
/** Turns of history (4 messages each): enough for the cached run of kept messages. */
const TURNS = 8;
const PROTOCOLS: ChatProtocol[] = ["openai-chat", "openai-compatible"];

type Messages = Record<string, unknown>[];

function body(protocol: ChatProtocol, messages: Messages): string {
  const request: ModelRequest = {
    model: "openai:bench",
    messages: messages as unknown as ChatMessage[],
    maxTokens: 64,
  };
  const text = chatRequestBody(protocol, ID, request)!;
  // What the runtime's fetch gets is the text, or the text's bytes.
  const sent = chatRequestBytes(protocol, ID, request)!;
  assert.equal(typeof sent === "string" ? sent : new TextDecoder().decode(sent), text);
  return text;
}

/** The same messages as plain objects no context handed out (nothing cached applies). */
function plain(messages: Messages): Messages {
  return JSON.parse(JSON.stringify(messages));
}

async function sessionTape(): Promise<Tape> {
  const tape = new Tape({ store: new InMemoryTapeStore(), name: "a__b" });
  await tape.store.append("a__b", anchorEntry("session/start", { owner: "human" }));
  for (let i = 0; i < TURNS; i++) {
    await tape.store.append("a__b", messageEntry({ role: "user", content: `turn ${i} é` }));
    await tape.store.append(
      "a__b",
      toolCallEntry([{
        id: `call_${i}`,
        type: "function",
        function: { name: "fs.read", arguments: `{"path":"x${i}"}` },
      }]),
    );
    await tape.store.append("a__b", toolResultEntry([{ ok: true, lines: [i] }]));
    await tape.store.append(
      "a__b",
      messageEntry({ role: "assistant", content: `done ${i}`, reasoning_content: "why" }),
    );
  }
  return tape;
}

describe("chat request body of kept context messages", () => {
  for (const protocol of PROTOCOLS) {
    test(`${protocol}: equal to plain copies on every call, and after appends`, async () => {
      const tape = await sessionTape();
      for (let call = 0; call < 3; call++) {
        const messages = await tape.readMessages();
        assert.equal(body(protocol, messages), body(protocol, plain(messages)));
        await tape.store.append("a__b", messageEntry({ role: "user", content: `more ${call}` }));
      }
    });

    for (const at of [0, 20]) {
      test(`${protocol}: a copy changed by a hook is sent as changed (turn ${at / 4})`, async () => {
        const tape = await sessionTape();
        body(protocol, await tape.readMessages()); // Fills the cache.
        const changes: Array<(messages: Messages) => void> = [
          (m) => void (m[at + 0]!.content = "rewritten"),
          (m) => void delete m[at + 0]!.content,
          (m) => {
            const content = m[at + 0]!.content;
            delete m[at + 0]!.content;
            m[at + 0]!.content = content; // Same value, another key order.
          },
          (m) => void (m[at + 0]!.extra = 1),
          (m) => {
            const calls = m[at + 1]!.tool_calls as Array<Record<string, unknown>>;
            calls[0]!.function = { name: "fs.read", arguments: '{"path":"other"}' };
          },
          (m) =>
            void (m[at + 1]!.tool_calls as unknown[]).push({
              id: "call_x",
              type: "function",
              function: { name: "fs.write", arguments: "{}" },
            }),
          (m) => void (m[at + 2]!.content = "changed result"),
          (m) => void (m[at + 3]!.reasoning_content = "other"),
        ];
        for (const change of changes) {
          const messages = await tape.readMessages();
          const before = body(protocol, messages);
          change(messages);
          // Key order, unknown keys and (OpenAI chat) reasoning do not reach the body; the rest does.
          const unsent = protocol === "openai-chat" ? [2, 3, 7] : [2, 3];
          if (!unsent.includes(changes.indexOf(change))) {
            assert.notEqual(body(protocol, messages), before);
          }
          assert.equal(body(protocol, messages), body(protocol, plain(messages)));
          // The unchanged copies of the next call still get the source's JSON.
          const fresh = await tape.readMessages();
          assert.equal(body(protocol, fresh), body(protocol, plain(fresh)));
        }
      });
    }
  }

  test("a message the direct body does not cover: both builders answer null, on every call", async () => {
    // Media parts are covered (sent unchanged); a part without a type is not.
    const image = [
      { type: "text", text: "look" },
      { image_url: { url: "https://example.test/i.png" } },
    ];
    const uncovered = (protocol: ChatProtocol, messages: Messages) => {
      const request: ModelRequest = {
        model: "openai:bench",
        messages: messages as unknown as ChatMessage[],
        maxTokens: 64,
      };
      assert.equal(chatBodyCovers(protocol, ID, request), true);
      assert.equal(chatRequestBody(protocol, ID, request), null);
      assert.equal(chatRequestBytes(protocol, ID, request), null);
    };
    const changes: Array<(messages: Messages) => void> = [
      (m) => void (m[4]!.content = image), // A kept copy changed by a hook.
      (m) => void (m[8]!.role = "function"),
      (m) => void m.push({ role: "user", content: image }), // The turn's own message.
      (m) => void m.unshift({ role: "critic", content: "x" }),
    ];
    for (const protocol of PROTOCOLS) {
      const tape = await sessionTape();
      body(protocol, await tape.readMessages()); // Fills the cache.
      for (const change of changes) {
        const messages = await tape.readMessages();
        change(messages);
        uncovered(protocol, messages);
        uncovered(protocol, plain(messages));
        const fresh = await tape.readMessages();
        assert.equal(body(protocol, fresh), body(protocol, plain(fresh)));
      }
      // A kept message of the tape itself (here after the cached run): refused on every call.
      await tape.store.append("a__b", messageEntry({ role: "user", content: image }));
      await tape.store.append("a__b", messageEntry({ role: "assistant", content: "seen" }));
      for (let call = 0; call < 2; call++) {
        const messages = await tape.readMessages();
        uncovered(protocol, messages);
        uncovered(protocol, messages.slice(0, -1));
        assert.equal(
          body(protocol, messages.slice(0, -2)),
          body(protocol, plain(messages.slice(0, -2))),
        );
      }
    }
    // OpenAI reasoning models are never covered.
    const request: ModelRequest = { model: "openai:o3", messages: [], maxTokens: 64 };
    assert.equal(chatBodyCovers("openai-chat", parseModelId("openai:o3"), request), false);
  });

  test("two sessions read before either request is built, and a handoff that restarts the context", async () => {
    const [first, second] = [await sessionTape(), await sessionTape()];
    await second.store.append("a__b", messageEntry({ role: "user", content: "second only" }));
    for (let round = 0; round < 2; round++) {
      const [a, b] = [await first.readMessages(), await second.readMessages()];
      for (const protocol of PROTOCOLS) {
        assert.equal(body(protocol, a), body(protocol, plain(a)));
        assert.equal(body(protocol, b), body(protocol, plain(b)));
        // A system message first and a steering message last, as the model runner sends them.
        const framed = [{ role: "system", content: "sys" }, ...b, { role: "user", content: "x" }];
        assert.equal(body(protocol, framed), body(protocol, plain(framed)));
      }
      await first.handoff({ name: "phase", state: { round } });
      await first.store.append("a__b", messageEntry({ role: "user", content: `after ${round}` }));
    }
  });
});
