/**
 * `TapeStore.lastEntry` (optional; the web console's tape list uses it): the file store reads
 * it from the end of the tape file (a torn last line is not an entry), SQLite from the last row
 * by id, the in-memory store from its list; all agree with a full read, and a missing tape has
 * none.
 */
import assert from "node:assert/strict";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { anchorEntry, messageEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { withDir } from "./_helpers.ts";

async function agreesWithFullRead(store: TapeStore): Promise<void> {
  assert.equal(await store.lastEntry!("a__missing"), null);
  const entries = [anchorEntry("session/start")];
  for (let i = 0; i < 3000; i++) {
    entries.push(messageEntry({ role: "user", content: `message ${i} ${"é".repeat(i % 50)}` }));
  }
  await store.appendMany!("a__b", entries);
  const all = await store.fetchAll(new TapeQuery("a__b", store));
  const last = await store.lastEntry!("a__b");
  assert.deepEqual(last, all.at(-1));
  assert.equal(last?.id, 3001);
}

describe("TapeStore.lastEntry", () => {
  test("in memory: the newest entry, null for a missing tape", async () => {
    await agreesWithFullRead(new InMemoryTapeStore());
  });

  test("file store: read from the end of the file; a torn last line is skipped", async () => {
    await withDir(async (dir) => {
      await using store = new FileTapeStore(dir);
      await agreesWithFullRead(store);
      await appendFile(store.pathOf("a__b"), '{"id": 3002, "kind": "message", "payl');
      assert.equal((await store.lastEntry("a__b"))?.id, 3001);
      await using fresh = new FileTapeStore(dir);
      assert.equal((await fresh.lastEntry("a__b"))?.id, 3001);
    });
  });

  test("sqlite: the last row by id", async () => {
    await withDir(async (dir) => {
      await using store = new SqliteTapeStore(join(dir, "tapes.db"), { durable: false });
      await agreesWithFullRead(store);
    });
  });
});
