/**
 * Where a `FileTapeStore` keeps fork journals: in the `forks` folder of its directory, so that a
 * session's first turn lists that folder and not every tape's file; journals an older version left
 * beside their tapes are moved in and recovered, unless their writer still runs.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { markForkDone, markForkLive } from "../../src/tape/fork_journal.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "./_helpers.ts";

const TAPE = "ws__session";
const note = (text: string) => createEntry("event", { name: "note", data: { text } });

test("a fork's journal is kept in the forks folder, not beside the tapes, and leaves with its commit", () =>
  withDir(async (dir) => {
    const store = new FileTapeStore(dir);
    try {
      await store.append(TAPE, note("before"));
      await store.journalAppend(TAPE, "f1", [note("on the fork")]);
      assert.deepEqual(readdirSync(dir).filter((name) => name.includes(".fork.")), []);
      assert.deepEqual(readdirSync(join(dir, "forks")), [`${TAPE}.jsonl.fork.f1`]);
      const mode = (path: string) => statSync(path).mode & 0o777;
      assert.equal(mode(join(dir, "forks")), 0o700, "the folder is the user's alone");
      assert.equal(mode(join(dir, "forks", `${TAPE}.jsonl.fork.f1`)), 0o600);
      await store.journalCommit(TAPE, "f1");
      assert.deepEqual(readdirSync(join(dir, "forks")), []);
      assert.deepEqual((await store.fetchAll(new TapeQuery(TAPE, store))).length, 2);
    } finally {
      await store.close();
    }
  }));

test("a journal an older version left beside its tape, its writer gone, is found, listed and committed once", () =>
  withDir(async (dir) => {
    const writer = new FileTapeStore(dir);
    await writer.append(TAPE, note("before"));
    await writer.journalAppend(TAPE, "f-old", [note("interrupted step")]);
    await writer.close();
    // Where versions before the forks folder kept it; no fork "f-old" runs in this process.
    const legacy = join(dir, `${TAPE}.jsonl.fork.f-old`);
    renameSync(join(dir, "forks", `${TAPE}.jsonl.fork.f-old`), legacy);

    const store = new FileTapeStore(dir);
    try {
      assert.deepEqual(await store.journalTapes(), [TAPE]);
      const pending = await store.journalPending(TAPE);
      assert.deepEqual(pending.map((fork) => [fork.fork, fork.alive, fork.entries.length]), [
        ["f-old", false, 1],
      ]);
      assert.equal(existsSync(legacy), false, "moved into the forks folder");
      await store.journalCommit(TAPE, "f-old");
      assert.deepEqual(await store.journalPending(TAPE), []);
      const texts = (await store.fetchAll(new TapeQuery(TAPE, store))).map((entry) =>
        entry.payload.data
      );
      assert.deepEqual(texts, [{ text: "before" }, { text: "interrupted step" }]);
    } finally {
      await store.close();
    }
  }));

test("a journal an older version beside this one is still writing stays where that version finds it", () =>
  withDir(async (dir) => {
    const writer = new FileTapeStore(dir);
    await writer.journalAppend(TAPE, "f-running", [note("in progress")]);
    await writer.close();
    const legacy = join(dir, `${TAPE}.jsonl.fork.f-running`);
    renameSync(join(dir, "forks", `${TAPE}.jsonl.fork.f-running`), legacy);
    markForkLive("f-running"); // its writer runs (here: this process, as the older version)
    const store = new FileTapeStore(dir);
    try {
      assert.deepEqual(await store.journalPending(TAPE), []);
      assert.equal(existsSync(legacy), true);
    } finally {
      markForkDone("f-running");
      await store.close();
    }
  }));
