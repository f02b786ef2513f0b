/**
 * A context fold keeps a stored tool-call payload's calls as they are (issue 13, heap per turn):
 * a stored payload is frozen throughout, so its plain `{id, type, function}` calls are the kept
 * message's `tool_calls`, without copies. Calls that are not frozen (entries a caller built) are
 * still copied, and every context read still hands out fresh copies.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MessageFold } from "../../src/tape/context.ts";
import { toolCallEntry, toolResultEntry } from "../../src/tape/entry.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { Tape } from "../../src/tape/tape.ts";

const CALLS = [
  { id: "call_1", type: "function", function: { name: "fs.read", arguments: "{}" } },
  { id: "call_2", type: "function", function: { name: "fs.write", arguments: '{"a":1}' } },
];

async function storedEntries() {
  const store = new InMemoryTapeStore();
  await store.appendMany("ws__shared", [toolCallEntry(CALLS), toolResultEntry(["one", "two"])]);
  return store.read("ws__shared")!;
}

test("a fold keeps a stored payload's frozen plain calls without copying them", async () => {
  const [call, result] = await storedEntries();
  const fold = new MessageFold();
  fold.push(call!);
  assert.equal(fold.messages[0]!.tool_calls, call!.payload.calls);
  fold.push(result!);
  assert.deepEqual(fold.messages.slice(1), [
    { role: "tool", content: "one", tool_call_id: "call_1", name: "fs.read" },
    { role: "tool", content: "two", tool_call_id: "call_2", name: "fs.write" },
  ]);
});

test("calls that are not frozen are copied, so a later change does not reach the fold", () => {
  const calls = structuredClone(CALLS);
  const entry = toolCallEntry(calls);
  const fold = new MessageFold();
  fold.push(entry);
  const kept = fold.messages[0]!.tool_calls as Record<string, unknown>[];
  assert.notEqual(kept, entry.payload.calls);
  (entry.payload.calls as Record<string, unknown>[])[0]!.id = "changed";
  assert.equal(kept[0]!.id, "call_1");
});

test("context reads over shared calls hand out fresh copies every time", async () => {
  const store = new InMemoryTapeStore();
  const tape = new Tape({ store }).scoped("ws__reads");
  await tape.ensureBootstrapAnchor();
  await tape.appendMany([toolCallEntry(CALLS), toolResultEntry(["one", "two"])]);
  const first = await tape.readMessages();
  const calls = first[0]!.tool_calls as Record<string, unknown>[];
  assert.deepEqual(first[0]!.tool_calls, CALLS);
  assert.ok(!Object.isFrozen(calls) && !Object.isFrozen(calls[0]));
  calls[0]!.id = "changed";
  calls.push({ id: "extra" });
  const second = await tape.readMessages();
  assert.deepEqual(second[0]!.tool_calls, CALLS);
  assert.notEqual(second[0]!.tool_calls, calls);
});
