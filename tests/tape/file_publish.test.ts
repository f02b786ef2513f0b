/**
 * A new tape's file made whole from the store's spare (`publishNewTape`, `SpareFile.publish`):
 * the batch is written to the spare, which is then linked under the tape's name, so no lock is
 * taken and the file never appears partly written; a file already there is never touched (the
 * batch goes through the lock then), and a writer holding the lock appends after the batch.
 */
import assert from "node:assert/strict";
import { unlinkSync, writeFileSync } from "node:fs";
import { readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { SpareFile } from "../../src/tape/file/_spare_file.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "./_helpers.ts";

/** Waits until `count` spare files are in `dir`. */
async function sparesMade(dir: string, count = 1): Promise<void> {
  const spares = async () =>
    (await readdir(dir)).filter((name) => name.startsWith(".bub-spare.")).length;
  while (await spares() < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

const contents = async (store: FileTapeStore, tape: string) =>
  (await new TapeQuery(tape, store).all()).map((entry) => [entry.id, entry.payload.content]);

test("a spare publishes its bytes only where no file is: an existing file is untouched and the spare stays, empty", () =>
  withDir(async (dir) => {
    const spare = new SpareFile(dir);
    assert.equal(spare.publish(join(dir, "a"), new TextEncoder().encode("x\n")), null);
    await spare.refill();
    await writeFile(join(dir, "taken"), "kept\n");
    assert.equal(spare.publish(join(dir, "taken"), new TextEncoder().encode("mine\n")), null);
    assert.equal(await readFile(join(dir, "taken"), "utf8"), "kept\n");
    assert.equal(spare.ready, true);
    const fd = spare.placeAt(join(dir, "empty"));
    assert.equal(typeof fd, "number");
    assert.equal(await readFile(join(dir, "empty"), "utf8"), "", "the spare was emptied");
    await spare.refill();
    const made = spare.publish(join(dir, "new"), new TextEncoder().encode("line\n"));
    assert.ok(made);
    assert.equal(await readFile(join(dir, "new"), "utf8"), "line\n");
    assert.equal(spare.ready, false);
    // The spare's own name goes once the caller has started the flush.
    assert.equal((await readdir(dir)).length, 4);
    spare.removePublishedName();
    assert.deepEqual((await readdir(dir)).sort(), ["empty", "new", "taken"]);
    await spare.close();
  }));

test("a new tape is made from the spare without its lock; a writer that holds the lock appends after it", () =>
  withDir(async (dir) => {
    await using store = new FileTapeStore(dir, { lockTimeoutMs: 100 });
    await store.append("a__first", messageEntry({ content: "first" }));
    await sparesMade(dir);
    // Another writer holds the new tape's lock (a live holder: this process).
    const lock = join(dir, "a__new.jsonl.lock");
    await writeFile(lock, `${process.pid}:other-writer::`);
    await store.appendMany("a__new", [
      messageEntry({ content: "one" }),
      messageEntry({ content: "two" }),
    ]);
    assert.equal(await readFile(lock, "utf8"), `${process.pid}:other-writer::`);
    // Once that writer is done, the next append (through the lock) continues the ids.
    await unlink(lock);
    await store.append("a__new", messageEntry({ content: "three" }));
    await using other = new FileTapeStore(dir);
    await other.append("a__new", messageEntry({ content: "four" }));
    const fresh = new FileTapeStore(dir);
    assert.deepEqual(await contents(fresh, "a__new"), [
      [1, "one"],
      [2, "two"],
      [3, "three"],
      [4, "four"],
    ]);
    await fresh.close();
  }));

test("two stores making the same new tape at once: one publishes, the other appends after it through the lock", () =>
  withDir(async (dir) => {
    await using a = new FileTapeStore(dir);
    await using b = new FileTapeStore(dir);
    await a.append("a__warm", messageEntry({ content: "a" }));
    await b.append("b__warm", messageEntry({ content: "b" }));
    await sparesMade(dir, 2);
    await Promise.all([
      a.appendMany("x__t", [messageEntry({ content: "a1" }), messageEntry({ content: "a2" })]),
      b.appendMany("x__t", [messageEntry({ content: "b1" }), messageEntry({ content: "b2" })]),
    ]);
    const fresh = new FileTapeStore(dir);
    const entries = await contents(fresh, "x__t");
    assert.deepEqual(entries.map(([id]) => id), [1, 2, 3, 4]);
    const order = entries.map(([, content]) => String(content)).join(",");
    assert.ok(order === "a1,a2,b1,b2" || order === "b1,b2,a1,a2", order);
    await fresh.close();
  }));

test("a new tape appended while the spare is still on its way waits for it instead of taking the tape's lock", () =>
  withDir(async (dir) => {
    await using store = new FileTapeStore(dir, { lockTimeoutMs: 100 });
    for (let i = 0; i < 3; i++) {
      // A batch's flush asks for a spare; appended at once, the next new tape finds it asked for
      // or being made, not ready. A live holder has that tape's lock: a batch going through the
      // lock would time out, one published from the spare takes no lock.
      await store.append(`a__before${i}`, messageEntry({ content: `before ${i}` }));
      const lock = join(dir, `a__new${i}.jsonl.lock`);
      writeFileSync(lock, `${process.pid}:other-writer::`);
      await store.appendMany(`a__new${i}`, [
        messageEntry({ content: `first ${i}` }),
        messageEntry({ content: `second ${i}` }),
      ]);
      unlinkSync(lock);
    }
    const fresh = new FileTapeStore(dir);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await contents(fresh, `a__before${i}`), [[1, `before ${i}`]]);
      assert.deepEqual(await contents(fresh, `a__new${i}`), [[1, `first ${i}`], [
        2,
        `second ${i}`,
      ]]);
    }
    await fresh.close();
  }));

test("new tapes appended at once while the spare is on its way: one is made from it, the others through their locks, each whole", () =>
  withDir(async (dir) => {
    await using store = new FileTapeStore(dir);
    await store.append("a__before", messageEntry({ content: "before" }));
    // The spare is asked for, not made: one batch waits for it, the others take their locks.
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.appendMany(`a__new${i}`, [
          messageEntry({ content: `first ${i}` }),
          messageEntry({ content: `second ${i}` }),
        ])),
    );
    const fresh = new FileTapeStore(dir);
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(await contents(fresh, `a__new${i}`), [[1, `first ${i}`], [
        2,
        `second ${i}`,
      ]]);
    }
    await fresh.close();
    await store.close();
    // No lock file and no spare is left.
    assert.deepEqual(
      (await readdir(dir)).filter((name) => !name.endsWith(".jsonl")),
      [],
    );
  }));
