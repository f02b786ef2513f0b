/**
 * Tape locks taken by hard-linking a store's holder file (`_lock_template.ts`): the same content
 * and exclusion as a created lock file, compatible both ways with created lock files, released
 * only while still the holder's own, and the holder file removed when the store closes.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BubError } from "../../src/kernel/errors.ts";
import { withFileLock } from "../../src/tape/file/_lock.ts";
import { LockTemplate } from "../../src/tape/file/_lock_template.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "./_helpers.ts";

const LINKED_HOLDER = fileURLToPath(new URL("./_linked_lock_holder.ts", import.meta.url));
const HOLDER = fileURLToPath(new URL("./_lock_holder.ts", import.meta.url));

const holderFiles = async (dir: string) =>
  (await readdir(dir)).filter((name) => name.startsWith(".bub-lock."));

function lockFails(path: string, template?: LockTemplate): Promise<unknown> {
  return withFileLock(path, () => Promise.resolve(), { what: "tape t", timeoutMs: 150, template })
    .then(() => null, (error) => error);
}

/** Runs `fn` while a child process (`script` with `args`) holds a lock. */
async function whileChildHolds(
  script: string,
  args: string[],
  fn: (pid: number) => Promise<void>,
): Promise<void> {
  const argv = "Deno" in globalThis ? ["run", "-A", script, ...args] : [script, ...args];
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk) => String(chunk).includes("held") && resolve());
      child.once("exit", (code) => reject(new Error(`holder exited early (${code})`)));
    });
    await fn(child.pid!);
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}

test("a linked lock is the holder file under the lock's name, gone on release; close removes the holder file", () =>
  withDir(async (dir) => {
    const template = new LockTemplate(dir);
    const path = join(dir, "t.jsonl.lock");
    await withFileLock(path, async () => {
      const [holder] = await holderFiles(dir);
      assert.ok(holder);
      assert.equal((await stat(path)).ino, (await stat(join(dir, holder))).ino);
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.match(await readFile(path, "utf8"), new RegExp(`^${process.pid}:[0-9a-f-]{36}:`));
      // A created lock file and another template both wait for it.
      assert.ok((await lockFails(path)) instanceof BubError);
      const other = new LockTemplate(dir);
      assert.ok((await lockFails(path, other)) instanceof BubError);
      other.close();
    }, { what: "tape t", template });
    await assert.rejects(stat(path), { code: "ENOENT" });
    assert.equal((await holderFiles(dir)).length, 1);
    template.close();
    assert.deepEqual(await holderFiles(dir), []);
  }));

test("a store's appends leave only its tapes and, until close, its holder and spare files", () =>
  withDir(async (dir) => {
    const store = new FileTapeStore(dir);
    for (const tape of ["a__b", "a__c", "a__b", "a__d"]) {
      await store.append(tape, messageEntry({ role: "user", content: tape }));
    }
    await store.reset("a__c");
    assert.equal((await holderFiles(dir)).length, 1);
    // The holder file, and the spare unless it is still being made after the last batch.
    const hidden = (await readdir(dir)).filter((n) => n.startsWith(".bub-")).sort();
    const own = `${process.pid}\\.[0-9a-f-]{36}`;
    assert.match(hidden.join(" "), new RegExp(`^\\.bub-lock\\.${own}( \\.bub-spare\\.${own})?$`));
    for (const name of ["a__b.jsonl", "a__d.jsonl", ...hidden]) {
      assert.equal((await stat(join(dir, name))).mode & 0o777, 0o600, name);
      assert.equal((await stat(join(dir, name))).nlink, 1, name);
    }
    await store.close();
    assert.deepEqual((await readdir(dir)).sort(), ["a__b.jsonl", "a__d.jsonl"]);
    assert.deepEqual(await store.listTapes(), ["a__b", "a__d"]);
    const fresh = new FileTapeStore(dir);
    for (const tape of ["a__b", "a__d"]) {
      const entries = await new TapeQuery(tape, fresh).all();
      assert.deepEqual(
        entries.map((e) => [e.id, e.payload.content]),
        tape === "a__b" ? [[1, "a__b"], [2, "a__b"]] : [[1, "a__d"]],
      );
    }
    await fresh.close();
  }));

for (const linked of [true, false]) {
  test(`a ${linked ? "linked" : "created"} lock broken and re-taken by another holder stays theirs on release`, () =>
    withDir(async (dir) => {
      const path = join(dir, "t.jsonl.lock");
      const template = linked ? new LockTemplate(dir) : undefined;
      await withFileLock(path, async () => {
        await unlink(path);
        await writeFile(path, "4242:another-holder::");
      }, { what: "tape t", template });
      assert.equal(await readFile(path, "utf8"), "4242:another-holder::");
      template?.close();
    }));
}

test("a linked lock held by a live process is respected, and taken over once it is killed", () =>
  withDir(async (dir) => {
    const path = join(dir, "a__b.jsonl.lock");
    const store = new FileTapeStore(dir, { lockTimeoutMs: 150 });
    await whileChildHolds(LINKED_HOLDER, [dir, path], async (pid) => {
      assert.match(await readFile(path, "utf8"), new RegExp(`^${pid}:`));
      const error = await store.append("a__b", messageEntry({ content: "x" })).then(
        () => null,
        (e) => e,
      );
      assert.ok(BubError.isInstance(error) && error.kind === "temporary", String(error));
    });
    const after = new FileTapeStore(dir, { lockTimeoutMs: 10_000 });
    await after.append("a__b", messageEntry({ content: "y" }));
    assert.deepEqual((await new TapeQuery("a__b", after).all()).map((e) => e.id), [1]);
    await after.close();
    await store.close();
  }));

test("a lock file created by another process holds off a store that links its locks", () =>
  withDir(async (dir) => {
    const path = join(dir, "a__b.jsonl.lock");
    const store = new FileTapeStore(dir, { lockTimeoutMs: 150 });
    await whileChildHolds(HOLDER, [path], async () => {
      const error = await store.append("a__b", messageEntry({ content: "x" })).then(
        () => null,
        (e) => e,
      );
      assert.ok(BubError.isInstance(error) && error.kind === "temporary", String(error));
    });
    await store.close();
  }));

test("a holder file removed while its lock is held: the lock is still released, and the next lock links a new holder file", () =>
  withDir(async (dir) => {
    const template = new LockTemplate(dir);
    const first = join(dir, "a.jsonl.lock");
    const second = join(dir, "b.jsonl.lock");
    await withFileLock(first, async () => {
      for (const name of await holderFiles(dir)) await unlink(join(dir, name));
      await withFileLock(second, async () => {
        assert.equal((await holderFiles(dir)).length, 1);
        assert.notEqual((await stat(first)).ino, (await stat(second)).ino);
      }, { what: "tape b", template });
    }, { what: "tape a", template });
    await assert.rejects(stat(first), { code: "ENOENT" });
    await assert.rejects(stat(second), { code: "ENOENT" });
    template.close();
    assert.deepEqual(await readdir(dir), []);
  }));
