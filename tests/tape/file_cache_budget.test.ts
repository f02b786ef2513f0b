/**
 * The file store's parsed-tape caches (`src/tape/file/_cache.ts`) are kept within a budget of file bytes
 * and of tapes, least recently used dropped first, so a gateway's many small live tapes stay
 * cached where a few long ones would not.
 */
import assert from "node:assert/strict";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { test } from "node:test";
import { emptyCache, type FileCache, FileCaches } from "../../src/tape/file/_cache.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "./_helpers.ts";

function holding(bytes: number): FileCache {
  return { ...emptyCache(), offset: bytes };
}

test("caches beyond the byte budget are dropped least recently used first", () => {
  const caches = new FileCaches({ bytes: 1000, tapes: 100 });
  caches.set("a__1", holding(400));
  caches.set("a__2", holding(400));
  caches.get("a__1"); // Used last: a__2 is now the oldest.
  caches.set("a__3", holding(400));
  assert.deepEqual([caches.has("a__1"), caches.has("a__2"), caches.has("a__3")], [
    true,
    false,
    true,
  ]);
  assert.equal(caches.bytes, 800);
});

test("a cache that grows is counted, and one alone over the budget is kept", () => {
  const caches = new FileCaches({ bytes: 1000, tapes: 100 });
  const small = holding(100);
  const big = holding(100);
  caches.set("a__small", small);
  caches.set("a__big", big);
  big.offset = 5000; // Entries added outside `catchUp` (an append's written batch).
  caches.grew("a__big", big);
  assert.equal(caches.has("a__small"), false);
  assert.equal(caches.has("a__big"), true);
  assert.equal(caches.bytes, 5000);
  caches.grew("a__small", small); // Dropped meanwhile: not counted again.
  assert.equal(caches.bytes, 5000);
  caches.delete("a__big");
  assert.equal(caches.bytes, 0);
});

test("many small caches are kept up to the tape budget", () => {
  const caches = new FileCaches({ tapes: 3 });
  for (const tape of ["a__1", "a__2", "a__3", "a__4"]) caches.set(tape, holding(10));
  assert.equal(caches.size, 3);
  assert.equal(caches.has("a__1"), false);
  assert.equal(caches.bytes, 30);
  caches.clear();
  assert.deepEqual([caches.size, caches.bytes], [0, 0]);
});

test("a store keeps the caches of more small live tapes than 64 (their files are not read again)", () =>
  withDir(async (dir) => {
    await using store = new FileTapeStore(dir, { durable: false });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 80; i++) {
        await store.append(`a__t${i}`, messageEntry({ role: "user", content: `${round}:${i}` }));
      }
    }
    // The files changed in place (same size and inode): a cached tape answers as it was written,
    // one read again from its file would answer with the change.
    for (let i = 0; i < 80; i++) {
      const path = store.pathOf(`a__t${i}`);
      const text = readFileSync(path, "utf8");
      const fd = openSync(path, "r+");
      writeSync(fd, text.replaceAll(`"1:${i}"`, `"X:${i}"`), 0);
      closeSync(fd);
    }
    for (let i = 0; i < 80; i++) {
      const entries = await new TapeQuery(`a__t${i}`, store).all();
      assert.deepEqual(entries.map((entry) => [entry.id, entry.payload.content]), [
        [1, `0:${i}`],
        [2, `1:${i}`],
      ]);
    }
  }));
