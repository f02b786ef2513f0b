/**
 * Context copies by shape (issue 13): a kept message of a common shape is copied as one object
 * literal, and a request body compares a copy with its source by the shape's keys. The copies must
 * be what a spread gives — the same keys in the same order, the same values, fresh objects every
 * read (a caller's change never reaches the next read) — for every shape the fold builds or
 * stores: `{role, content}` payloads and anchors, tool results with and without their call's
 * id and name, built tool calls, and payloads of any other form (more keys, other key orders).
 * The recorded tape `tests/fixtures/tape/bub_session.jsonl` must give the contexts and request
 * bodies it gave before (`bub_session.context.json`, written by the code before shapes).
 */
import assert from "node:assert/strict";
import { copyFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { type ChatProtocol, chatRequestBody } from "../../src/agent/providers/_chat_body.ts";
import { parseModelId } from "../../src/agent/providers/provider_presets.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { withDir } from "./_helpers.ts";
import { TapeContext } from "../../src/kernel/tape_context.ts";
import { LAST_ANCHOR, selectMessages } from "../../src/tape/context.ts";
import {
  anchorEntry,
  messageEntry,
  type TapeEntry,
  toolCallEntry,
  toolResultEntry,
} from "../../src/tape/entry.ts";
import { matchedCopies, sameAsSource } from "../../src/tape/message_source.ts";
import {
  copyMessage,
  type MessageShape,
  payloadShape,
  SHAPE_ANY,
  SHAPE_TEXT,
  ShapeList,
} from "../../src/tape/_message_shape.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { Tape } from "../../src/tape/tape.ts";

const CALL = { id: "call_1", type: "function", function: { name: "fs.read", arguments: "{}" } };

function entries(): TapeEntry[] {
  return [
    anchorEntry("phase", { n: 1 }),
    messageEntry({ role: "user", content: "hi" }),
    messageEntry({ content: "reversed", role: "user" }),
    messageEntry({ role: "assistant", content: "a", reasoning_content: "r" }),
    messageEntry({ role: "user", content: [{ type: "text", text: "parts" }] }),
    toolCallEntry([CALL, { type: "function", function: { name: "nameless" } }, { id: "c3" }]),
    toolResultEntry(["ok", { value: 2 }, "third", "surplus"]),
    toolCallEntry([CALL, { ...CALL, id: "call_2" }]),
    toolResultEntry(["one", "two"]),
    messageEntry({ role: "assistant", content: null }),
  ];
}

/** The selection as it was built before shapes: spread copies. */
function spreadCopies(messages: Record<string, unknown>[]): Record<string, unknown>[] {
  return messages.map((message) => {
    const copy = { ...message };
    if (Array.isArray(message.tool_calls)) {
      copy.tool_calls = message.tool_calls.map((call: Record<string, unknown>) => ({ ...call }));
    }
    return copy;
  });
}

test("copies of every shape equal spread copies, key order included, and are fresh on every read", async () => {
  for (
    const context of [
      new TapeContext({ anchor: null, select: selectMessages }),
      new TapeContext({ anchor: LAST_ANCHOR }),
    ]
  ) {
    const tape = new Tape({ store: new InMemoryTapeStore(), name: "a__b", context });
    for (const entry of entries()) await tape.append(entry);
    const first = await tape.readMessages();
    assert.ok(first.length > 0);
    assert.equal(JSON.stringify(first), JSON.stringify(spreadCopies(first)));
    const second = await tape.readMessages();
    assert.equal(JSON.stringify(second), JSON.stringify(first));
    for (let i = 0; i < first.length; i++) {
      assert.notEqual(second[i], first[i]);
      assert.deepEqual(Object.keys(second[i]!), Object.keys(first[i]!));
      if (Array.isArray(first[i]!.tool_calls)) {
        assert.notEqual(second[i]!.tool_calls, first[i]!.tool_calls);
        (first[i]!.tool_calls as Record<string, unknown>[])[0]!.id = "changed";
      }
      first[i]!.content = "changed";
      first[i]!.extra = true;
    }
    assert.equal(JSON.stringify(await tape.readMessages()), JSON.stringify(second));
  }
});

test("the selection's tool messages keep the key order role, content, tool_call_id, name", () => {
  const messages = selectMessages(entries());
  const tools = messages.filter((message) => message.role === "tool");
  assert.deepEqual(tools.map((message) => Object.keys(message)), [
    ["role", "content", "tool_call_id", "name"],
    ["role", "content", "name"],
    ["role", "content", "tool_call_id"],
    ["role", "content"],
    ["role", "content", "tool_call_id", "name"],
    ["role", "content", "tool_call_id", "name"],
  ]);
  const calls = messages.filter((message) => message.tool_calls !== undefined);
  assert.deepEqual(
    calls.map((message) => (message.tool_calls as object[]).map((call) => Object.keys(call))),
    [
      [["id", "type", "function"], ["type", "function"], ["id"]],
      [["id", "type", "function"], ["id", "type", "function"]],
    ],
  );
});

test("a payload's shape: exactly role then content (defined, no symbol keys) is the literal shape", () => {
  assert.equal(payloadShape({ role: "user", content: "x" }), SHAPE_TEXT);
  assert.equal(payloadShape({ role: "user", content: null }), SHAPE_TEXT);
  assert.equal(payloadShape({ content: "x", role: "user" }), SHAPE_ANY);
  assert.equal(payloadShape({ role: "user", content: undefined }), SHAPE_ANY);
  assert.equal(payloadShape({ role: "user" }), SHAPE_ANY);
  assert.equal(payloadShape({ role: "user", content: "x", name: "n" }), SHAPE_ANY);
  assert.equal(payloadShape({ role: "user", content: "x", [Symbol("s")]: 1 }), SHAPE_ANY);
  const inherited = Object.assign(Object.create({ content: "x" }), { role: "user" });
  assert.equal(payloadShape(inherited), SHAPE_ANY);
});

test("a copy compared with its source by shape: any change of a key or value is seen", () => {
  const cases: [Record<string, unknown>, 0 | 1 | 2 | 3 | 4][] = [
    [{ role: "user", content: "x" }, 1],
    [{ role: "tool", content: "ok", tool_call_id: "c", name: "n" }, 2],
    [{ role: "assistant", content: "", tool_calls: [{ ...CALL }, { id: "x" }] }, 3],
    [{ role: "assistant", content: "", tool_calls: [{ ...CALL }, { ...CALL, id: "y" }] }, 4],
    [{ role: "assistant", content: "a", reasoning_content: "r" }, 0],
  ];
  for (const [source, shape] of cases) {
    assert.ok(sameAsSource(copyMessage(source, shape), source, shape));
    for (const key of Object.keys(source)) {
      const changed = copyMessage(source, shape);
      changed[key] = "other";
      assert.equal(sameAsSource(changed, source, shape), false, `${key} changed`);
      const removed = copyMessage(source, shape);
      delete removed[key];
      assert.equal(sameAsSource(removed, source, shape), false, `${key} removed`);
    }
    const added = copyMessage(source, shape);
    added.extra = 1;
    assert.equal(sameAsSource(added, source, shape), false, "key added");
    if (shape >= 3) {
      const changes: Array<(calls: Record<string, unknown>[]) => void> = [
        (calls) => void (calls[0]!.id = "other"),
        (calls) => void (calls[1]!.extra = 1),
        (calls) => void delete calls[0]!.type,
        (calls) => void calls.pop(),
        (calls) => void (calls[0] = { ...calls[0] }),
      ];
      for (const [i, change] of changes.entries()) {
        const copy = copyMessage(source, shape);
        change(copy.tool_calls as Record<string, unknown>[]);
        // A call replaced by an equal one is still the same (its JSON is).
        assert.equal(sameAsSource(copy, source, shape), i === 4, `call change ${i}`);
      }
    }
  }
});

test("a kept list's side-by-side values: copies and checks equal those made from the objects", () => {
  const cases: [Record<string, unknown>, MessageShape][] = [
    [{ role: "user", content: "x" }, 1],
    [{ role: "tool", content: "ok", tool_call_id: "c", name: "n" }, 2],
    [{ role: "assistant", content: "", tool_calls: [{ ...CALL }, { id: "x" }] }, 3],
    [{ role: "assistant", content: "", tool_calls: [{ ...CALL }, { ...CALL, id: "y" }] }, 4],
    [{ role: "assistant", content: "", tool_calls: [] }, 4],
    [{ role: "assistant", content: "a", reasoning_content: "r" }, 0],
    [{ role: "user", content: null }, 1],
  ];
  const first = new ShapeList();
  const second = new ShapeList();
  cases.forEach(([message, shape], i) => (i < 3 ? first : second).push(shape, message));
  // Long enough to grow the list's arrays.
  const long = new ShapeList();
  for (let i = 0; i < 40; i++) long.push(cases[i % cases.length]![1], cases[i % cases.length]![0]);
  const lists: [ShapeList, number][] = [[first.concat(second), 0], [long, 0], [long, 35]];
  for (const [list, from] of lists) {
    // All at once (and messages past the list's end, copied by a spread).
    const sources = Array.from({ length: list.length + 2 }, (_, i) => cases[i % cases.length]![0]);
    const all: Record<string, unknown>[] = [{ role: "system", content: "s" }];
    list.copyAll(sources, all, 1);
    assert.equal(all.length, sources.length + 1);
    sources.forEach((source, i) => {
      const copy = all[i + 1]!;
      const shape = i < list.length ? cases[i % cases.length]![1] : SHAPE_ANY;
      assert.equal(JSON.stringify(copy), JSON.stringify(copyMessage(source, shape)));
      assert.notEqual(copy, source);
    });
    for (let i = from; i < list.length; i++) {
      const [source, shape] = cases[i % cases.length]!;
      assert.equal(list.get(i), shape);
      const copy = list.copy(i, source);
      assert.equal(JSON.stringify(copy), JSON.stringify(copyMessage(source, shape)));
      assert.notEqual(copy, source);
      if (Array.isArray(source.tool_calls)) {
        assert.notEqual(copy.tool_calls, source.tool_calls);
        (copy.tool_calls as unknown[]).forEach((call, c) =>
          assert.notEqual(call, (source.tool_calls as unknown[])[c])
        );
      }
      assert.ok(sameAsSource(copy, source, shape));
      const variants: Array<(copy: Record<string, unknown>) => void> = [
        (m) => void (m.content = "other"),
        (m) => void (m.role = "system"),
        (m) => void delete m.content,
        (m) => void (m.extra = 1),
        (m) => void (m.tool_call_id = "other"),
        (m) => void (m.tool_calls = [{ ...CALL, id: "z" }]),
        (m) => void (Array.isArray(m.tool_calls) && m.tool_calls.push({ ...CALL })),
        (m) => void (Array.isArray(m.tool_calls) && m.tool_calls[0] && (m.tool_calls[0].id = "w")),
      ];
      for (const change of variants) {
        const changed = list.copy(i, source);
        change(changed);
        assert.equal(sameAsSource(changed, source, shape), sameAsSource(changed, source, 0));
      }
    }
  }
});

test("a run of copies is matched up to its first changed copy, after any messages before it", () => {
  const cases: [Record<string, unknown>, MessageShape][] = [
    [{ role: "user", content: "x" }, 1],
    [{ role: "assistant", content: "", tool_calls: [{ ...CALL }, { ...CALL, id: "y" }] }, 4],
    [{ role: "tool", content: "ok", tool_call_id: "c", name: "n" }, 2],
    [{ role: "assistant", content: "a", reasoning_content: "r" }, 0],
    [{ role: "assistant", content: "", tool_calls: [{ ...CALL }, { id: "x" }] }, 3],
  ];
  const kept = Array.from({ length: 30 }, (_, i) => cases[i % cases.length]![0]);
  const shapes = new ShapeList();
  kept.forEach((message, i) => shapes.push(cases[i % cases.length]![1], message));
  const run = { start: 2, kept, shapes };
  const changes: Array<(copy: Record<string, unknown>) => void> = [
    (m) => void (m.content = "other"),
    (m) => void (m.extra = 1),
    (m) => void (Array.isArray(m.tool_calls) ? m.tool_calls.pop() : delete m.role),
  ];
  for (let at = 0; at < kept.length; at++) {
    for (const change of changes) {
      const messages = [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        ...kept.map((message, i) => shapes.copy(i, message)),
        { role: "user", content: "last" },
      ];
      assert.equal(matchedCopies(run, messages, 2, kept.length), kept.length);
      assert.equal(matchedCopies(run, messages, 2, 7), 7);
      change(messages[2 + at]!);
      assert.equal(matchedCopies(run, messages, 2, kept.length), at);
    }
  }
});

test("a recorded tape's contexts and request bodies are what they were before shapes (golden)", async () => {
  const golden = JSON.parse(
    await readFile(new URL("../fixtures/tape/bub_session.context.json", import.meta.url), "utf8"),
  ) as Record<string, { messages: string; bodies: Record<ChatProtocol, string> }>;
  await withDir(async (dir) => {
    await copyFile(
      new URL("../fixtures/tape/bub_session.jsonl", import.meta.url),
      join(dir, "fixture.jsonl"),
    );
    const store = new FileTapeStore(dir);
    const anchors: [string, typeof LAST_ANCHOR | null][] = [
      ["whole tape", null],
      ["after the last anchor", LAST_ANCHOR],
    ];
    for (const [name, anchor] of anchors) {
      for (const select of [selectMessages, null]) {
        const tape = new Tape({
          store,
          name: "fixture",
          context: new TapeContext({ anchor, select }),
        });
        const expected = golden[`${name}${select ? "" : ", messages only"}`]!;
        for (let read = 0; read < 2; read++) {
          const messages = await tape.readMessages();
          assert.equal(JSON.stringify(messages), expected.messages);
          for (const protocol of ["openai-chat", "openai-compatible"] as const) {
            const body = chatRequestBody(protocol, parseModelId("openai:x"), {
              model: "openai:x",
              messages: messages as never,
              maxTokens: 9,
            });
            assert.equal(body, expected.bodies[protocol]);
          }
        }
      }
    }
    await store[Symbol.asyncDispose]?.();
  });
});
