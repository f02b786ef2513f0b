import assert from "node:assert/strict";
import {
  appendFile,
  copyFile,
  mkdir,
  readdir,
  readFile,
  truncate,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { BubError } from "../../src/kernel/errors.ts";
import { entryLine } from "../../src/tape/file/_jsonl.ts";
import { anchorEntry, messageEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { ForkTapeStore } from "../../src/tape/fork_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import { withDir } from "./_helpers.ts";

const FIXTURE = new URL("../fixtures/tape/bub_session.jsonl", import.meta.url);

test("FileTapeStore lines have keys id, kind, payload, meta, date in that order, ids starting at 1", () =>
  withDir(async (dir) => {
    const store = new FileTapeStore(dir);
    await store.append("a__b", anchorEntry("session/start", { owner: "human" }));
    await store.append("a__b", {
      ...messageEntry({ role: "user", content: "é😀" }),
      date: "2026-08-21T14:51:51.123456+00:00",
    });
    const lines = (await readFile(join(dir, "a__b.jsonl"), "utf8")).split("\n");
    assert.equal(lines.length, 3);
    assert.equal(lines[2], "");
    assert.match(
      lines[0]!,
      /^\{"id": 1, "kind": "anchor", "payload": \{"name": "session\/start", "state": \{"owner": "human"\}\}, "meta": \{\}, "date": "[^"]+"\}$/,
    );
    assert.equal(
      lines[1],
      '{"id": 2, "kind": "message", "payload": {"role": "user", "content": "é😀"}, "meta": {}, "date": "2026-08-21T14:51:51.123456+00:00"}',
    );
  }));

test("a tape written in Bub's format reads back entry for entry (bad lines skipped, legacy timestamp dated)", () =>
  withDir(async (dir) => {
    await copyFile(FIXTURE, join(dir, "a__b.jsonl"));
    const entries = await new TapeQuery("a__b", new FileTapeStore(dir)).all();
    assert.deepEqual(entries.map((e) => e.id), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.equal(entries[3]?.payload.content, "Grüße, 世界 😀");
    assert.equal((entries[5]?.payload.results as string[])[0], 'line one\nline "two"\té');
    assert.deepEqual(entries[9]?.meta, {});
    assert.equal(entries[9]?.kind, "error");
    assert.equal(entries[10]?.date, "2025-08-21T14:51:57.250000+00:00");
    assert.equal(entries[11]?.date, "1970-01-01T00:00:00+00:00");
    assert.deepEqual(entries[8]?.meta, { run_id: "run-20260821T145152000001Z", context: false });
  }));

test("our files re-read identically and re-serialise to Bub's exact lines", () =>
  withDir(async (dir) => {
    const source = (await readFile(FIXTURE, "utf8")).split("\n");
    await copyFile(FIXTURE, join(dir, "a__b.jsonl"));
    const entries = await new TapeQuery("a__b", new FileTapeStore(dir)).all();
    for (const i of [0, 1, 2, 3, 4, 6, 7, 8]) {
      assert.equal(entryLine(entries[i]!), `${source[i]}\n`);
    }
    const copy = new FileTapeStore(join(dir, "copy"));
    for (const entry of entries) await copy.append("c__d", entry);
    const reread = await new TapeQuery("c__d", new FileTapeStore(join(dir, "copy"))).all();
    assert.deepEqual(reread, entries);
  }));

test("a truncated tape file is re-read from scratch; appends then continue from its last id", () =>
  withDir(async (dir) => {
    const store = new FileTapeStore(dir);
    for (let i = 0; i < 5; i++) await store.append("a__b", messageEntry({ content: `m${i}` }));
    const path = join(dir, "a__b.jsonl");
    const text = await readFile(path, "utf8");
    const keep = text.split("\n").slice(0, 2).join("\n") + "\n";
    await truncate(path, Buffer.byteLength(keep));
    const entries = await new TapeQuery("a__b", store).all();
    assert.deepEqual(entries.map((e) => e.payload.content), ["m0", "m1"]);
    await store.append("a__b", messageEntry({ content: "m2b" }));
    assert.deepEqual((await new TapeQuery("a__b", store).all()).map((e) => e.id), [1, 2, 3]);
  }));

test("reads are incremental: lines appended by another writer appear on the next read", () =>
  withDir(async (dir) => {
    const reader = new FileTapeStore(dir);
    const writer = new FileTapeStore(dir);
    await writer.append("a__b", messageEntry({ content: "1" }));
    assert.equal((await new TapeQuery("a__b", reader).all()).length, 1);
    await writer.append("a__b", messageEntry({ content: "2" }));
    await reader.append("a__b", messageEntry({ content: "3" }));
    assert.deepEqual(
      (await new TapeQuery("a__b", reader).all()).map((e) => [e.id, e.payload.content]),
      [[1, "1"], [2, "2"], [3, "3"]],
    );
  }));

test("a torn last line is skipped on read and never glued to the next append", () =>
  withDir(async (dir) => {
    const store = new FileTapeStore(dir);
    await store.append("a__b", messageEntry({ content: "whole" }));
    const path = join(dir, "a__b.jsonl");
    await appendFile(path, '{"id": 2, "kind": "message", "payload": {"content": "to');
    assert.deepEqual((await new TapeQuery("a__b", new FileTapeStore(dir)).all()).map((e) => e.id), [
      1,
    ]);
    await new FileTapeStore(dir).append("a__b", messageEntry({ content: "next" }));
    const lines = (await readFile(path, "utf8")).split("\n");
    assert.equal(lines.length, 4);
    assert.match(lines[1]!, /"content": "to$/);
    const entries = await new TapeQuery("a__b", new FileTapeStore(dir)).all();
    assert.deepEqual(entries.map((e) => [e.id, e.payload.content]), [[1, "whole"], [2, "next"]]);
  }));

test("listTapes excludes `a__b__sidecar__spill`, archive `.bak` files and other files", () =>
  withDir(async (dir) => {
    const store = new FileTapeStore(dir);
    await store.append("a__b", messageEntry({ content: "x" }));
    await store.append("a__b__sidecar__spill", messageEntry({ content: "x" }));
    await store.append("plain", messageEntry({ content: "x" }));
    await writeFile(join(dir, "a__b.jsonl.20260101T000000Z.bak"), "");
    await writeFile(join(dir, "c__d.txt"), "");
    assert.deepEqual(await store.listTapes(), ["a__b"]);
    assert.deepEqual(await new FileTapeStore(join(dir, "missing")).listTapes(), []);
  }));

test("reset(tape) deletes the file and clears the cache", () =>
  withDir(async (dir) => {
    const store = new FileTapeStore(dir);
    await store.append("a__b", messageEntry({ content: "x" }));
    await store.reset("a__b");
    assert.deepEqual((await readdir(dir)).filter((n) => n.startsWith("a__b")), []);
    assert.deepEqual(await new TapeQuery("a__b", store).all(), []);
  }));

test("two successive fork merges into a FileTapeStore yield ids 1 and 2", () =>
  withDir(async (dir) => {
    const store = new FileTapeStore(dir);
    for (const content of ["first", "second"]) {
      const fork = new ForkTapeStore(store, { tape: "a__b" });
      await fork.append("a__b", messageEntry({ content }));
      await fork.mergeBack();
    }
    const entries = await new TapeQuery("a__b", store).all();
    assert.deepEqual(entries.map((e) => [e.id, e.payload.content]), [[1, "first"], [2, "second"]]);
  }));

for (
  const [name, make] of [
    ["FileTapeStore", (dir: string) => new FileTapeStore(dir)],
    ["SqliteTapeStore", (dir: string) => new SqliteTapeStore(join(dir, "t.db"))],
  ] as const
) {
  test(`${name} search returns newest first, deduplicates identical payloads, defaults to 20 results`, () =>
    withDir(async (dir) => {
      const store = make(dir);
      try {
        for (let i = 0; i < 30; i++) {
          await store.append("a__b", messageEntry({ role: "user", content: `deploy step ${i}` }));
        }
        await store.append("a__b", messageEntry({ role: "user", content: "deploy step 29" }));
        await store.append("a__b", messageEntry({ role: "user", content: "unrelated" }));
        const found = await new TapeQuery("a__b", store).query("Deploy").all();
        assert.equal(found.length, 20);
        assert.deepEqual(found.slice(0, 3).map((e) => e.payload.content), [
          "deploy step 29",
          "deploy step 28",
          "deploy step 27",
        ]);
        assert.equal(found[0]?.id, 31);
        const limited = await new TapeQuery("a__b", store).query("deploy").limit(2).all();
        assert.deepEqual(limited.map((e) => e.id), [31, 29]);
        assert.deepEqual(await new TapeQuery("a__b", store).query("   ").all(), []);
      } finally {
        await (store as { close(): Promise<void> }).close();
      }
    }));

  test(`${name} search for a non-ASCII query returns nothing (escaping quirk)`, () =>
    withDir(async (dir) => {
      const store = make(dir);
      try {
        await store.append("a__b", messageEntry({ role: "user", content: "café au lait" }));
        assert.deepEqual(await new TapeQuery("a__b", store).query("café").all(), []);
        assert.equal((await new TapeQuery("a__b", store).query("lait").all()).length, 1);
      } finally {
        await (store as { close(): Promise<void> }).close();
      }
    }));
}

test("an unusable tape directory fails with a BubError naming the tape, and stored tapes stay readable", () =>
  withDir(async (dir) => {
    const good = new FileTapeStore(join(dir, "good"));
    await good.append("a__b", messageEntry({ content: "kept" }));
    await writeFile(join(dir, "file"), "not a directory");
    const bad = new FileTapeStore(join(dir, "file"));
    await assert.rejects(bad.append("a__b", messageEntry({ content: "x" })), (error: unknown) => {
      assert.ok(BubError.isInstance(error));
      assert.match(error.message, /tape "a__b"/);
      return true;
    });
    const nested = new FileTapeStore(join(dir, "file", "tapes"));
    await assert.rejects(new TapeQuery("c__d", nested).all(), /tape "c__d"/);
    await mkdir(join(dir, "good", "x__y.jsonl"));
    await assert.rejects(new TapeQuery("x__y", good).all(), /tape "x__y"/);
    assert.deepEqual((await new TapeQuery("a__b", good).all()).map((e) => e.payload.content), [
      "kept",
    ]);
  }));
