import assert from "node:assert/strict";
import { test } from "node:test";
import { eventEntry, messageEntry } from "../../src/tape/entry.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { UnavailableTapeStore } from "../../src/tape/store.ts";
import { entryAt } from "./_helpers.ts";

test("in-memory text query matches against kind/date/meta/payload JSON, case-insensitively (non-ASCII escaped)", async () => {
  const store = new InMemoryTapeStore();
  await store.append(
    "a__b",
    entryAt("message", { content: "Hello" }, "2026-03-04T05:06:07+00:00", { run_id: "Run-XYZ" }),
  );
  await store.append("a__b", eventEntry("Special"));
  await store.append("a__b", messageEntry({ content: "café" }));
  const hits = async (text: string) =>
    (await new TapeQuery("a__b", store).query(text).all()).map((e) => e.id);
  assert.deepEqual(await hits("RUN-xyz"), [1]);
  assert.deepEqual(await hits("2026-03-04t05"), [1]);
  assert.deepEqual(await hits('"kind": "event"'), [2]);
  assert.deepEqual(await hits("hello"), [1]);
  assert.deepEqual(await hits("café"), []);
  assert.deepEqual(await hits("caf\\u00e9"), [3]);
});

test("queries are immutable builders and reject bad arguments with errors naming the tape", () => {
  const store = new InMemoryTapeStore();
  const base = new TapeQuery("a__b", store);
  const narrowed = base.kinds("message").limit(3).lastAnchor();
  assert.deepEqual([base.kindList, base.limitCount, base.afterLast], [[], null, false]);
  assert.deepEqual([narrowed.kindList, narrowed.limitCount, narrowed.afterLast], [
    ["message"],
    3,
    true,
  ]);
  assert.throws(
    () => base.limit(-1),
    (e: unknown) =>
      e instanceof RangeError && /tape "a__b"/.test(e.message) && /-1/.test(e.message),
  );
  assert.throws(() => base.afterAnchor(3 as unknown as string), /tape "a__b"/);
  assert.throws(() => base.betweenDates(null as unknown as string, "x"), TypeError);
  assert.throws(() => new TapeQuery("", store), TypeError);
});

test("UnavailableTapeStore throws BubError(invalid_input, message) from every method", async () => {
  const store = new UnavailableTapeStore("Tapes are disabled here.");
  for (
    const call of [
      () => store.listTapes(),
      () => store.reset("a"),
      () => store.append("a", messageEntry({})),
      () => new TapeQuery("a", store).all(),
    ]
  ) {
    await assert.rejects(call(), { kind: "invalid_input", message: "Tapes are disabled here." });
  }
});
