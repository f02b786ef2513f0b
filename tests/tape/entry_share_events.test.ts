/**
 * Stored event payloads equal to a recent one of the same name share it (issue 13, heap per turn):
 * a step after the first starts with the same `loop.step.start {step, prompt: null}` in every turn.
 * Only equal payloads are shared (same keys in the same order, same values), shared payloads are
 * frozen, and what is stored and written is unchanged.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { eventEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { withDir } from "./_helpers.ts";

const TAPE = "ws__events";

test("equal flat event payloads of one name share one frozen payload; others do not", async () => {
  const store = new InMemoryTapeStore();
  const events = [
    eventEntry("loop.step.start", { step: 1, prompt: "turn 1" }),
    eventEntry("loop.step.start", { step: 2, prompt: null }),
    eventEntry("loop.step.start", { step: 1, prompt: "turn 2" }),
    eventEntry("loop.step.start", { step: 2, prompt: null }),
    eventEntry("loop.step.start", { prompt: null, step: 2 }),
    eventEntry("other", { step: 2, prompt: null }),
    eventEntry("loop.step.start", { step: 2, prompt: null, extra: 0 }),
    eventEntry("loop.step.start", { step: 2, prompt: "" }),
  ];
  await store.appendMany(TAPE, events);
  const stored = store.read(TAPE)!;
  assert.deepEqual(
    stored.map((entry) => entry.payload),
    events.map((entry) => entry.payload),
  );
  const [, second, , fourth, reordered, other, extra, empty] = stored.map((e) => e.payload);
  assert.equal(fourth, second);
  for (const payload of [reordered, other, extra, empty]) assert.notEqual(payload, second);
  assert.deepEqual(Object.keys(reordered!.data as object), ["prompt", "step"]);
  assert.ok(Object.isFrozen(second) && Object.isFrozen(second!.data));
});

test("payloads with nested data are stored as their own copies", async () => {
  const store = new InMemoryTapeStore();
  const data = { status: "ok", usage: { prompt_tokens: 1 } };
  await store.appendMany(TAPE, [eventEntry("run", data), eventEntry("run", data)]);
  const [first, second] = store.read(TAPE)!;
  assert.deepEqual(first!.payload, second!.payload);
  assert.notEqual(first!.payload, second!.payload);
});

test("a file tape writes and reads back shared payloads as separate equal lines", async () => {
  await withDir(async (dir) => {
    const store = new FileTapeStore(dir);
    try {
      for (let turn = 1; turn <= 3; turn++) {
        await store.appendMany(TAPE, [
          eventEntry("loop.step.start", { step: 1, prompt: `turn ${turn}` }),
          eventEntry("loop.step.start", { step: 2, prompt: null }),
        ]);
      }
      const lines = (await readFile(store.pathOf(TAPE), "utf8")).trim().split("\n");
      assert.equal(lines.length, 6);
      for (const i of [1, 3, 5]) {
        const line = JSON.parse(lines[i]!);
        assert.deepEqual(line.payload, {
          name: "loop.step.start",
          data: { step: 2, prompt: null },
        });
        assert.equal(line.id, i + 1);
      }
    } finally {
      await store.close();
    }
  });
});
