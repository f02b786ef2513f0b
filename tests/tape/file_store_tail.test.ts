/**
 * Tail reads of `FileTapeStore`: a first anchor query (or append) on a long tape reads it from
 * its last anchor on, with exactly the results, ids and change detection of a full read.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { appendFile, open, readFile, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { entryLine } from "../../src/tape/file/_jsonl.ts";
import { anchorEntry, createEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "./_helpers.ts";

const FIXTURE = new URL("../fixtures/tape/bub_session.jsonl", import.meta.url);
const TAPE = "a__b";

/** One line of entry `id` (dated by id: ten days apart every 100 ids). */
function line(id: number, kind: string, payload: Record<string, unknown>): string {
  const day = String(1 + Math.floor(id / 100) % 28).padStart(2, "0");
  return entryLine({ ...createEntry(kind, payload, {}, `2026-03-${day}T12:00:00+00:00`), id });
}

/** `count` message lines from id `from` on, long enough for the tape to need a tail read. */
function filler(from: number, count: number): string {
  let text = "";
  for (let id = from; id < from + count; id++) {
    text += line(id, "message", { role: "user", content: `m${id} ${"lorem ipsum ".repeat(20)}` });
  }
  return text;
}

type Query = (q: TapeQuery) => TapeQuery;
const QUERIES: [string, Query][] = [
  ["lastAnchor", (q) => q.lastAnchor()],
  ["lastAnchor kinds message", (q) => q.lastAnchor().kinds("message")],
  ["lastAnchor limit 3", (q) => q.lastAnchor().limit(3)],
  ["lastAnchor text", (q) => q.lastAnchor().query("m9")],
  ["afterAnchor handoff", (q) => q.afterAnchor("handoff")],
  ["afterAnchor session/start", (q) => q.afterAnchor("session/start")],
  ["afterAnchor start", (q) => q.afterAnchor("start")],
  ["afterAnchor missing", (q) => q.afterAnchor("missing")],
  ["betweenAnchors start handoff", (q) => q.betweenAnchors("start", "handoff")],
  ["betweenAnchors handoff start", (q) => q.betweenAnchors("handoff", "start")],
  ["all", (q) => q],
  ["betweenDates", (q) => q.betweenDates("2026-03-02", "2026-03-03")],
  ["kinds anchor", (q) => q.kinds("anchor")],
  ["text", (q) => q.query("m1")],
];

async function outcome(store: FileTapeStore, query: Query): Promise<unknown> {
  try {
    return await query(new TapeQuery(TAPE, store)).all();
  } catch (error) {
    const { name, message, kind } = error as Error & { kind?: string };
    return { name, message, kind };
  }
}

/** Every query, first on a fresh store, equals the same query on a store that read everything. */
async function assertColdEqualsFull(dir: string, content: string): Promise<void> {
  await writeFile(join(dir, `${TAPE}.jsonl`), content);
  const full = new FileTapeStore(dir);
  const everything = await new TapeQuery(TAPE, full).all();
  for (const [name, query] of QUERIES) {
    const cold = new FileTapeStore(dir);
    assert.deepEqual(await outcome(cold, query), await outcome(full, query), name);
    assert.deepEqual(await new TapeQuery(TAPE, cold).all(), everything, `${name}, then all`);
  }
}

test("cold anchor queries on a long tape equal full reads (anchors mid-tape, repeated names)", () =>
  withDir((dir) =>
    assertColdEqualsFull(
      dir,
      line(1, "anchor", { name: "start" }) + filler(2, 300) +
        line(302, "anchor", { name: "handoff", state: { n: 1 } }) + filler(303, 100) +
        line(403, "anchor", { name: "start" }) + filler(404, 40) +
        line(444, "anchor", { name: "handoff" }) + filler(445, 50),
    )
  ));

test("cold anchor queries equal full reads with the only anchor at the very start or very end", () =>
  withDir(async (dir) => {
    await assertColdEqualsFull(dir, line(1, "anchor", { name: "start" }) + filler(2, 400));
    await assertColdEqualsFull(dir, filler(1, 400) + line(401, "anchor", { name: "handoff" }));
    await assertColdEqualsFull(
      dir,
      `\uFEFF${line(1, "anchor", { name: "start" })}${filler(2, 400)}`,
    );
  }));

test("cold anchor queries equal full reads when lines are longer than a read block", () =>
  withDir(async (dir) => {
    const huge = (id: number, size: number) =>
      line(id, "message", { role: "tool", content: `${id} ${"x".repeat(size)}` });
    await assertColdEqualsFull(
      dir,
      filler(1, 100) + huge(101, 200_000) + line(102, "anchor", { name: "handoff" }) +
        huge(103, 150_000) + filler(104, 5) + huge(109, 70_000),
    );
    await assertColdEqualsFull(dir, huge(1, 300_000) + line(2, "anchor", { name: "start" }));
    await assertColdEqualsFull(dir, huge(1, 100_000).trimEnd());
  }));

test("cold anchor queries on a long tape without anchors raise 'No anchors found in tape.'", () =>
  withDir(async (dir) => {
    await assertColdEqualsFull(dir, filler(1, 400));
    const error = await outcome(new FileTapeStore(dir), (q) => q.lastAnchor());
    assert.deepEqual(error, {
      name: "BubError",
      message: "No anchors found in tape.",
      kind: "not_found",
    });
  }));

test("Bub's fixture after a long history reads back the same cold (bad lines, legacy dates)", () =>
  withDir(async (dir) => {
    const fixture = await readFile(FIXTURE, "utf8");
    await assertColdEqualsFull(dir, filler(1, 400) + fixture);
    const entries = await new TapeQuery(TAPE, new FileTapeStore(dir)).lastAnchor().all();
    assert.deepEqual(entries.map((e) => e.id), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.equal(entries[2]?.payload.content, "Grüße, 世界 😀");
    assert.equal(entries[9]?.date, "2025-08-21T14:51:57.250000+00:00");
  }));

test("only valid anchor lines count: invalid, quoted, BOM-prefixed and torn ones do not", () =>
  withDir(async (dir) => {
    const fakes = [
      '{"id": "999", "kind": "anchor", "payload": {"name": "handoff"}, "meta": {}}',
      '{"kind": "anchor", "payload": {"name": "handoff"}}',
      '{"id": 998, "kind": "anchor", "payload": ["handoff"]}',
      `\uFEFF${line(997, "anchor", { name: "handoff" }).trimEnd()}`,
      line(996, "message", { content: '{"id": 1, "kind": "anchor", "payload": {}}' }).trimEnd(),
      "not json",
    ].join("\n");
    const head = line(1, "anchor", { name: "start" }) + filler(2, 200);
    const escaped = '{"id": 402, "kind": "\\u0061nchor", "payload": {"name": "handoff"}}\n';
    await assertColdEqualsFull(dir, `${head}${escaped}${filler(403, 200)}${fakes}\n`);
    const torn = '{"id": 999, "kind": "anchor", "payload": {"name": "to';
    await assertColdEqualsFull(dir, `${head}${filler(202, 200)}${fakes}\n${torn}`);
    const entries = await new TapeQuery(TAPE, new FileTapeStore(dir)).lastAnchor().all();
    assert.equal(entries[0]?.id, 2);
  }));

test("appends after a cold read (or to an uncached long tape) continue from the last valid id", () =>
  withDir(async (dir) => {
    const path = join(dir, `${TAPE}.jsonl`);
    const body = line(1, "anchor", { name: "start" }) + filler(2, 300) +
      line(302, "anchor", { name: "handoff" }) + filler(303, 50);
    await writeFile(path, `${body}not json\n{"id": 999, "kind": "mess`);
    const store = new FileTapeStore(dir);
    assert.equal((await new TapeQuery(TAPE, store).lastAnchor().all()).length, 50);
    await store.appendMany(TAPE, [messageEntry({ content: "x" }), messageEntry({ content: "y" })]);
    await new FileTapeStore(dir).append(TAPE, messageEntry({ content: "z" }));
    await new FileTapeStore(dir).append(TAPE, anchorEntry("later"));
    await store.append(TAPE, messageEntry({ content: "after" }));
    const all = await new TapeQuery(TAPE, new FileTapeStore(dir)).all();
    assert.deepEqual(all.slice(-5).map((e) => [e.id, e.kind]), [
      [353, "message"],
      [354, "message"],
      [355, "message"],
      [356, "anchor"],
      [357, "message"],
    ]);
    assert.equal(all.length, 357);
    assert.deepEqual(await new TapeQuery(TAPE, store).all(), all);
    const tail = await new TapeQuery(TAPE, store).lastAnchor().all();
    assert.deepEqual(tail.map((e) => e.payload.content), ["after"]);
  }));

test("a cold anchor read leaves the lines before the anchor unread until a query needs them", () =>
  withDir(async (dir) => {
    const path = join(dir, `${TAPE}.jsonl`);
    const first = line(1, "message", { content: "old" });
    await writeFile(path, first + filler(2, 400) + line(402, "anchor", { name: "handoff" }));
    const store = new FileTapeStore(dir);
    assert.deepEqual(await new TapeQuery(TAPE, store).afterAnchor("handoff").all(), []);
    // Another writer rewrites the first line in place (same length, same file).
    const handle = await open(path, "r+");
    try {
      await handle.write(Buffer.from(first.replace("old", "new")), 0, first.length, 0);
    } finally {
      await handle.close();
    }
    const [entry] = await new TapeQuery(TAPE, store).limit(1).all();
    assert.equal(entry?.payload.content, "new");
  }));

test("a long tape truncated by another writer after a cold read is re-read from scratch", () =>
  withDir(async (dir) => {
    const path = join(dir, `${TAPE}.jsonl`);
    const keep = line(1, "anchor", { name: "start" }) + filler(2, 300);
    await writeFile(path, keep + line(302, "anchor", { name: "handoff" }) + filler(303, 50));
    const store = new FileTapeStore(dir);
    assert.equal((await new TapeQuery(TAPE, store).lastAnchor().all()).length, 50);
    await truncate(path, Buffer.byteLength(keep));
    const tail = await new TapeQuery(TAPE, store).lastAnchor().all();
    assert.deepEqual(tail.map((e) => e.id), Array.from({ length: 300 }, (_, i) => i + 2));
    await store.append(TAPE, messageEntry({ content: "next" }));
    const all = await new TapeQuery(TAPE, new FileTapeStore(dir)).all();
    assert.deepEqual(all.map((e) => e.id), Array.from({ length: 302 }, (_, i) => i + 1));
    // Replaced by a shorter tape with a new anchor: the cached tail is dropped as well.
    await writeFile(path, filler(1, 3) + line(4, "anchor", { name: "fresh" }));
    await appendFile(path, filler(5, 1));
    assert.deepEqual((await new TapeQuery(TAPE, store).lastAnchor().all()).map((e) => e.id), [5]);
  }));

test("anchors appended by another writer after a cold read are seen; eviction keeps ids right", () =>
  withDir(async (dir) => {
    const body = filler(1, 400) + line(401, "anchor", { name: "handoff" }) + filler(402, 10);
    const names = Array.from({ length: 70 }, (_, i) => `t${i}__x`);
    for (const name of names) await writeFile(join(dir, `${name}.jsonl`), body);
    const reader = new FileTapeStore(dir);
    const last = (name: string): Promise<TapeEntry[]> =>
      new TapeQuery(name, reader).lastAnchor().all();
    for (const name of names) assert.equal((await last(name)).length, 10);
    const writer = new FileTapeStore(dir);
    // t0 was evicted from the reader's 64 cached tapes; t69 is still cached.
    for (const name of [names[0]!, names[69]!]) {
      await writer.appendMany(name, [anchorEntry("next"), messageEntry({ content: "a" })]);
      assert.deepEqual((await last(name)).map((e) => e.id), [413]);
      await reader.append(name, messageEntry({ content: "b" }));
      assert.deepEqual((await last(name)).map((e) => e.id), [413, 414]);
    }
    await reader.append(names[1]!, messageEntry({ content: "c" }));
    const all = await new TapeQuery(names[1]!, writer).all();
    assert.deepEqual(all.slice(-2).map((e) => e.id), [411, 412]);
    assert.equal(all.length, 412);
    assert.deepEqual(await new TapeQuery(names[1]!, reader).all(), all);
  }));
