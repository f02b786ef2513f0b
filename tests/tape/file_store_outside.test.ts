/**
 * What the file store answers from its cache without opening the file (`lastEntry`, a head
 * query, `latestEvents`, a missing tape) still follows the file: lines another writer appended
 * between two batches, a tape another process reset or replaced, a tape created or removed.
 */
import assert from "node:assert/strict";
import { appendFile, rm, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { entryLine } from "../../src/tape/file/_jsonl.ts";
import { anchorEntry, createEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "./_helpers.ts";

const TAPE = "ws__s";

function lineOf(id: number, entry: TapeEntry): string {
  return entryLine({ ...entry, id });
}

test("an outside writer's lines between two batches are seen by lastEntry, head and latestEvents, and the next batch follows them", () =>
  withDir(async (dir) => {
    await using store = new FileTapeStore(dir);
    await store.appendMany(TAPE, [messageEntry({ content: "a" }), messageEntry({ content: "b" })]);
    assert.equal((await store.lastEntry(TAPE))?.id, 2);
    assert.deepEqual(await store.latestEvents(TAPE, ["run"]), []);
    await appendFile(
      store.pathOf(TAPE),
      lineOf(3, anchorEntry("outside")) +
        lineOf(4, createEntry("event", { name: "run", data: { by: "outside" } })),
    );
    const last = await store.lastEntry(TAPE);
    assert.equal(last?.id, 4);
    assert.equal(last?.kind, "event");
    assert.deepEqual(
      (await new TapeQuery(TAPE, store).kinds("anchor").limit(1).all()).map((e) => e.id),
      [3],
    );
    assert.deepEqual((await store.latestEvents(TAPE, ["run"])).map((e) => e.id), [4]);
    await store.append(TAPE, messageEntry({ content: "c" }));
    assert.equal((await store.lastEntry(TAPE))?.id, 5);
    const fresh = new FileTapeStore(dir);
    assert.deepEqual((await new TapeQuery(TAPE, fresh).all()).map((e) => e.id), [1, 2, 3, 4, 5]);
    await fresh.close();
  }));

test("a tape another process reset or replaced reads as its new file, and a removed one as missing", () =>
  withDir(async (dir) => {
    await using store = new FileTapeStore(dir);
    await store.appendMany(TAPE, [anchorEntry("first"), messageEntry({ content: "a" })]);
    assert.equal((await store.lastEntry(TAPE))?.id, 2);
    const replacement = lineOf(1, anchorEntry("other")) +
      lineOf(2, messageEntry({ content: "zz" }));
    await unlink(store.pathOf(TAPE));
    await writeFile(store.pathOf(TAPE), replacement);
    const last = await store.lastEntry(TAPE);
    assert.deepEqual(last?.payload, { content: "zz" });
    assert.deepEqual(
      (await new TapeQuery(TAPE, store).kinds("anchor").limit(1).all()).map((e) => e.payload.name),
      ["other"],
    );
    await unlink(store.pathOf(TAPE));
    assert.equal(await store.lastEntry(TAPE), null);
    assert.deepEqual(await new TapeQuery(TAPE, store).kinds("anchor").limit(1).all(), []);
    assert.deepEqual(await new TapeQuery(TAPE, store).all(), []);
    await store.append(TAPE, messageEntry({ content: "again" }));
    assert.equal((await store.lastEntry(TAPE))?.id, 1);
  }));

test("a missing tape reads empty before its folder exists, after it appears, and after it is removed", () =>
  withDir(async (dir) => {
    const tapes = join(dir, "tapes");
    await using store = new FileTapeStore(tapes);
    const empty = async () => {
      assert.equal(await store.lastEntry(TAPE), null);
      assert.deepEqual(await store.latestEvents(TAPE, ["run"]), []);
      assert.deepEqual(await new TapeQuery(TAPE, store).kinds("anchor").limit(1).all(), []);
      assert.deepEqual(await new TapeQuery(TAPE, store).all(), []);
    };
    await empty();
    await store.append("ws__other", messageEntry({ content: "x" }));
    await empty();
    // Another process creates the tape: seen at once.
    await writeFile(join(tapes, `${TAPE}.jsonl`), lineOf(1, anchorEntry("outside")));
    assert.equal((await store.lastEntry(TAPE))?.payload.name, "outside");
    await rm(tapes, { recursive: true });
    await empty();
  }));
