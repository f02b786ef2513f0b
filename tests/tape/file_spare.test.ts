/**
 * The spare file a durable file store links as a new tape's file (`_spare_file.ts`): never put
 * over an existing file, used once, and a tape made from it holds exactly the batch written.
 */
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { SpareFile } from "../../src/tape/_spare_file.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "./_helpers.ts";

test("a spare is placed once, only where no file is, and removed on close", () =>
  withDir(async (dir) => {
    const spare = new SpareFile(dir);
    assert.equal(spare.placeAt(join(dir, "a")), false);
    spare.prepare();
    assert.equal(spare.ready, true);
    await writeFile(join(dir, "taken"), "kept");
    assert.equal(spare.placeAt(join(dir, "taken")), false);
    assert.equal(await readFile(join(dir, "taken"), "utf8"), "kept");
    assert.deepEqual(await readdir(dir), ["taken"]);
    spare.prepare();
    assert.equal(spare.placeAt(join(dir, "new")), true);
    assert.equal(spare.ready, false);
    assert.equal(await readFile(join(dir, "new"), "utf8"), "");
    spare.prepare();
    spare.close();
    assert.deepEqual((await readdir(dir)).sort(), ["new", "taken"]);
  }));

test("new tapes made from spares hold their own batches; a tape created by another writer meanwhile is appended to", () =>
  withDir(async (dir) => {
    await using store = new FileTapeStore(dir);
    for (let i = 0; i < 5; i++) {
      await store.appendMany(`a__t${i}`, [
        messageEntry({ content: `first ${i}` }),
        messageEntry({ content: `second ${i}` }),
      ]);
    }
    // The spare is ready; another writer creates the next tape first.
    await writeFile(join(dir, "a__t5.jsonl"), "");
    await store.append("a__t5", messageEntry({ content: "after outside create" }));
    const fresh = new FileTapeStore(dir);
    for (let i = 0; i < 5; i++) {
      const entries = await new TapeQuery(`a__t${i}`, fresh).all();
      assert.deepEqual(entries.map((e) => [e.id, e.payload.content]), [
        [1, `first ${i}`],
        [2, `second ${i}`],
      ]);
    }
    assert.deepEqual((await new TapeQuery("a__t5", fresh).all()).map((e) => e.id), [1]);
    await fresh.close();
  }));
