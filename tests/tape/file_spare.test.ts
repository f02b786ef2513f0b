/**
 * The spare file a durable file store links as a new tape's file (`_spare_file.ts`): never put
 * over an existing file, used once, and a tape made from it holds exactly the batch written; and
 * the helper files of killed processes removed when a store closes (`_stray_files.ts`).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, fstatSync, readSync, writeSync } from "node:fs";
import { readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { SpareFile } from "../../src/tape/file/_spare_file.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "./_helpers.ts";

/** Waits until a spare file is in `dir`. */
async function spareMade(dir: string): Promise<void> {
  while (!(await readdir(dir)).some((name) => name.startsWith(".bub-spare."))) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

test("a spare is placed once, only where no file is, and removed on close", () =>
  withDir(async (dir) => {
    const spare = new SpareFile(dir);
    assert.equal(spare.placeAt(join(dir, "a")), null);
    await spare.refill();
    assert.equal(spare.ready, true);
    await writeFile(join(dir, "taken"), "kept");
    assert.equal(spare.placeAt(join(dir, "taken")), null);
    assert.equal(await readFile(join(dir, "taken"), "utf8"), "kept");
    // Not placed over an existing file: the spare stays for the next new tape.
    assert.equal(spare.ready, true);
    assert.deepEqual((await readdir(dir)).filter((name) => !name.startsWith(".bub-spare.")), [
      "taken",
    ]);
    assert.equal((await readdir(dir)).length, 2);
    await spare.refill();
    const fd = spare.placeAt(join(dir, "new"));
    assert.equal(typeof fd, "number");
    assert.equal(spare.ready, false);
    assert.equal(await readFile(join(dir, "new"), "utf8"), "");
    // Handed over open, to append and read like a tape file.
    writeSync(fd!, "line\n");
    assert.equal(await readFile(join(dir, "new"), "utf8"), "line\n");
    const back = new Uint8Array(4);
    assert.equal(readSync(fd!, back, 0, 4, 0), 4);
    assert.equal(new TextDecoder().decode(back), "line");
    assert.equal(fstatSync(fd!).mode & 0o777, 0o600);
    closeSync(fd!);
    void spare.refill(); // Closed while it is being made: removed all the same.
    assert.equal(await spare.close(), true);
    assert.deepEqual((await readdir(dir)).sort(), ["new", "taken"]);
  }));

test("a spare asked for and closed before it is made leaves no file; one removed by another process is skipped", () =>
  withDir(async (dir) => {
    const spare = new SpareFile(dir);
    spare.refillSoon(); // Made after this task: closed first, it is never made.
    assert.equal(await spare.close(), false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(await readdir(dir), []);
    spare.refillSoon();
    // Ready once its open's callback ran (the file is in the folder a little before that).
    while (!spare.ready) await new Promise((resolve) => setTimeout(resolve, 2));
    assert.equal((await readdir(dir)).filter((name) => name.startsWith(".bub-spare.")).length, 1);
    for (const name of await readdir(dir)) await unlink(join(dir, name)); // Another's cleanup.
    assert.equal(spare.placeAt(join(dir, "a")), null);
    assert.equal(spare.ready, false);
    assert.deepEqual(await readdir(dir), []);
    await spare.close();
  }));

test("new tapes made from spares hold their own batches; a tape created by another writer meanwhile is appended to", () =>
  withDir(async (dir) => {
    await using store = new FileTapeStore(dir);
    for (let i = 0; i < 5; i++) {
      if (i > 0) await spareMade(dir); // Made after the previous batch, not awaited by it.
      await store.appendMany(`a__t${i}`, [
        messageEntry({ content: `first ${i}` }),
        messageEntry({ content: `second ${i}` }),
      ]);
    }
    // The spare is ready; another writer creates the next tape first.
    await spareMade(dir);
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

/** The PID of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["--version"], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

test("a store that wrote removes, on close, the helper files killed processes left, and no others", () =>
  withDir(async (dir) => {
    const dead = await deadPid();
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    await new Promise((resolve, reject) => sleeper.once("spawn", resolve).once("error", reject));
    const exited = new Promise((resolve) => sleeper.once("exit", resolve));
    try {
      const names = [
        `.bub-lock.${dead}.1`,
        `.bub-spare.${dead}.2`,
        `.bub-lock.${sleeper.pid}.3`,
        `.bub-spare.${sleeper.pid}.4`,
        ".bub-lock.not-a-pid",
        "notes.txt",
      ];
      for (const name of names) await writeFile(join(dir, name), "");
      const reader = new FileTapeStore(dir);
      assert.deepEqual(await new TapeQuery("a__b", reader).all(), []);
      await reader.close(); // Wrote nothing: leaves the folder alone.
      assert.equal((await readdir(dir)).length, names.length);
      const store = new FileTapeStore(dir);
      await store.append("a__b", messageEntry({ content: "x" }));
      await store.close();
      assert.deepEqual((await readdir(dir)).sort(), [...names.slice(2), "a__b.jsonl"].sort());
    } finally {
      sleeper.kill("SIGKILL");
      await exited;
    }
  }));
