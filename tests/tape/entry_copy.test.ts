/**
 * Stored copies without the JSON text (issue 13, the tape's hot path): plain data is copied and
 * frozen directly, equal to the JSON round trip; anything else takes the round trip; a fork over
 * a plain memory store hands its frozen copies to the merge as they are.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { frozenJsonCopy, NOT_PLAIN, pyDumps } from "../../src/_internal/json.ts";
import { createEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { ForkTapeStore } from "../../src/tape/fork_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";

const TAPE = "ws__copy";

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

const sparse = [1, , 3];
const PLAIN: unknown[] = [
  { a: 1, b: "two", c: [true, false, null], d: { e: { f: [] } } },
  { n: 1e-7, big: 1e21, neg: -0, nan: NaN, inf: -Infinity, max: Number.MAX_VALUE },
  { text: 'é 😀 \u2028 "q" \\ \n \u0000 \ud800', "": "empty key", "2": "int", z: 0 },
  { skipped: undefined, fn: () => 1, sym: Symbol("s"), kept: 1 },
  [undefined, () => 1, Symbol("s"), sparse],
  Object.assign(Object.create(null), { bare: "null prototype" }),
];

test("a plain value's frozen copy equals its JSON round trip, key order included", () => {
  for (const value of PLAIN) {
    const copy = frozenJsonCopy(value);
    assert.notEqual(copy, NOT_PLAIN);
    assert.equal(JSON.stringify(copy), JSON.stringify(value));
    assert.deepEqual(copy, JSON.parse(JSON.stringify(value)));
    assert.equal(pyDumps(copy), pyDumps(JSON.parse(JSON.stringify(value))));
    assert.ok(isDeepFrozen(copy));
    assert.notEqual(copy, value);
  }
});

test("values JSON treats specially are left to the round trip", () => {
  class Point {
    x = 1;
  }
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) deep = { deep };
  const arrayWithToJson = Object.assign([1], { toJSON: () => "x" });
  for (
    const value of [
      { when: new Date(0) },
      { point: new Point() },
      { custom: { toJSON: () => "x" } },
      { list: arrayWithToJson },
      { boxed: new Number(2) },
      { big: 1n },
      { map: new Map() },
      JSON.parse('{"__proto__": {"polluted": true}}'),
      deep,
    ]
  ) {
    assert.equal(frozenJsonCopy(value), NOT_PLAIN);
  }
});

test("the memory store keeps the round trip of any entry, frozen, and shares nothing with it", async () => {
  const store = new InMemoryTapeStore();
  const payloads = [
    ...PLAIN.filter((value) => !Array.isArray(value)),
    { when: new Date(0), boxed: new Number(2), nested: { custom: { toJSON: () => "x" } } },
  ] as Record<string, unknown>[];
  await store.appendMany(TAPE, payloads.map((payload) => createEntry("event", payload)));
  const stored = store.read(TAPE)!;
  assert.deepEqual(
    stored.map((entry) => entry.payload),
    payloads.map((payload) => JSON.parse(JSON.stringify(payload))),
  );
  for (const entry of stored) assert.ok(isDeepFrozen(entry));
  const changing = { list: [1] };
  await store.append(TAPE, createEntry("event", changing));
  changing.list.push(2);
  assert.deepEqual(store.read(TAPE)!.at(-1)!.payload, { list: [1] });
});

test("a fork over a memory store merges its frozen copies with the parent's ids", async () => {
  const parent = new InMemoryTapeStore();
  await parent.append(TAPE, messageEntry({ role: "user", content: "before" }));
  const fork = new ForkTapeStore(parent, { tape: TAPE });
  const message = { role: "user", content: [{ type: "text", text: "hi" }] };
  await fork.appendMany(TAPE, [
    messageEntry(message, { run_id: "run-1" }),
    createEntry("event", { name: "run", data: { when: new Date(0) } }, { run_id: "run-1" }),
  ]);
  message.content[0]!.text = "changed";
  assert.equal((await new TapeQuery(TAPE, parent).all()).length, 1);
  await fork.mergeBack();
  const stored = parent.read(TAPE)!;
  assert.deepEqual(stored.map((entry) => entry.id), [1, 2, 3]);
  assert.deepEqual(stored[1]!.payload, { role: "user", content: [{ type: "text", text: "hi" }] });
  assert.deepEqual(stored[2]!.payload, { name: "run", data: { when: new Date(0).toISOString() } });
  assert.deepEqual(stored[2]!.meta, { run_id: "run-1" });
  for (const entry of stored) assert.ok(isDeepFrozen(entry));
  // The merged entries are the parent's own: a second fork continues the ids.
  const second = new ForkTapeStore(parent, { tape: TAPE });
  await second.append(TAPE, createEntry("event", { name: "again" }));
  await second.mergeBack();
  assert.deepEqual(parent.read(TAPE)!.map((entry) => entry.id), [1, 2, 3, 4]);
});

test("a fork over a subclass of the memory store merges through its appendMany", async () => {
  const seen: TapeEntry[][] = [];
  class Counting extends InMemoryTapeStore {
    override async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
      seen.push([...entries]);
      await super.appendMany(tape, entries);
    }
  }
  const parent = new Counting();
  const fork = new ForkTapeStore(parent, { tape: TAPE });
  await fork.append(TAPE, createEntry("event", { name: "x", data: { n: 1 } }));
  await fork.mergeBack();
  assert.equal(seen.length, 1);
  assert.deepEqual(parent.read(TAPE)!.map((entry) => entry.payload), [{
    name: "x",
    data: { n: 1 },
  }]);
});
