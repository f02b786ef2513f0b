import assert from "node:assert/strict";
import { test } from "node:test";
import { TapeContext } from "../../src/kernel/tape_context.ts";
import { defaultTapeContext, LAST_ANCHOR, selectMessages } from "../../src/tape/context.ts";
import {
  anchorEntry,
  createEntry,
  eventEntry,
  messageEntry,
  type TapeEntry,
  toolCallEntry,
  toolResultEntry,
} from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { createTapeHooks } from "../../src/builtin/tape_hooks.ts";

async function tapeWith(entries: TapeEntry[], context?: TapeContext): Promise<Tape> {
  const tape = new Tape({ store: new InMemoryTapeStore(), context }).scoped("a__b");
  for (const entry of entries) await tape.append(entry);
  return tape;
}

test("entries with meta.context === false never reach any context selector", async () => {
  const seen: unknown[] = [];
  const context = new TapeContext({
    anchor: null,
    select: (entries) => (seen.push(...entries.map((e) => e.payload)), []),
  });
  const tape = await tapeWith([
    messageEntry({ role: "user", content: "visible" }),
    messageEntry({ role: "user", content: "hidden" }, { context: false }),
    messageEntry({ role: "user", content: "falsy but not false" }, { context: 0 }),
  ], context);
  await tape.readMessages();
  assert.deepEqual(seen.map((p) => (p as Record<string, unknown>).content), [
    "visible",
    "falsy but not false",
  ]);
  const plain = tape.withContext(new TapeContext({ anchor: null }));
  assert.deepEqual((await plain.readMessages()).map((m) => m.content), [
    "visible",
    "falsy but not false",
  ]);
});

test("default context attaches tool_call_id and name to tool messages by position; surplus results have neither", () => {
  const calls = [
    { id: "call_1", type: "function", function: { name: "fs_read", arguments: "{}" } },
    "not an object",
    { id: "", function: { name: "" } },
  ];
  const messages = selectMessages([
    toolCallEntry(calls),
    toolResultEntry(["text", { ok: true, é: "ü" }, 3, "surplus"]),
    toolResultEntry(["after clear"]),
  ]);
  assert.deepEqual(messages, [
    { role: "assistant", content: "", tool_calls: [calls[0], calls[2]] },
    { role: "tool", content: "text", tool_call_id: "call_1", name: "fs_read" },
    { role: "tool", content: '{"ok": true, "é": "ü"}' },
    { role: "tool", content: "3" },
    { role: "tool", content: "surplus" },
    { role: "tool", content: "after clear" },
  ]);
});

test("default context excludes everything up to and including the last anchor", async () => {
  const tape = await tapeWith([
    messageEntry({ role: "user", content: "before" }),
    anchorEntry("handoff", { summary: "s" }),
    messageEntry({ role: "user", content: "after" }),
    eventEntry("loop.start", {}),
    createEntry("system", { content: "sys" }),
  ], defaultTapeContext());
  assert.deepEqual(await tape.readMessages(), [{ role: "user", content: "after" }]);
  assert.equal(defaultTapeContext().anchor, LAST_ANCHOR);
});

test("with anchor: null, an anchor renders as `[Anchor created: <name>]: <json state>`", async () => {
  const tape = await tapeWith([
    anchorEntry("session/start", { owner: "human", note: "é" }),
    anchorEntry("bare"),
    messageEntry({ role: "user", content: "x" }),
  ], new TapeContext({ anchor: null, select: selectMessages }));
  assert.deepEqual(await tape.readMessages(), [
    {
      role: "assistant",
      content: '[Anchor created: session/start]: {"owner": "human", "note": "é"}',
    },
    { role: "assistant", content: "[Anchor created: bare]: null" },
    { role: "user", content: "x" },
  ]);
  const named = tape.withContext(
    new TapeContext({ anchor: "session/start", select: selectMessages }),
  );
  assert.deepEqual((await named.readMessages()).map((m) => m.content), [
    "[Anchor created: bare]: null",
    "x",
  ]);
});

test("builtin tape hooks provide the file store at <home>/tapes, the spill sidecar and the default context", async () => {
  const hooks = createTapeHooks({ home: "/tmp/bub-home", spillThreshold: 7 });
  const provided = hooks.provideTapeStore();
  const store = (await provided.next()).value;
  assert.ok(store instanceof FileTapeStore);
  assert.equal(store.directory, "/tmp/bub-home/tapes");
  assert.equal((await provided.next()).done, true, "the generator ends when the scope exits");
  assert.equal(hooks.provideTapeSidecar().name, "spill");
  assert.equal((hooks.provideTapeSidecar() as { threshold?: number }).threshold, 7);
  assert.ok(hooks.buildTapeContext() instanceof TapeContext);
  assert.equal(hooks.buildTapeContext().anchor, LAST_ANCHOR);
  assert.deepEqual(
    (hooks.afterToolCall as unknown as Record<symbol, unknown>)[Symbol.for("bub.hookimpl")],
    { trylast: true },
  );
  assert.throws(() => createTapeHooks({ home: "" }), TypeError);
  assert.throws(() => createTapeHooks({ home: "/x", spillThreshold: -1 }), RangeError);
});
