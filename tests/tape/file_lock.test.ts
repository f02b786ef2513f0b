import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BubError } from "../../src/kernel/errors.ts";
import { withFileLock } from "../../src/tape/file/_lock.ts";
import { identityOf } from "../../src/_internal/process_identity.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { withDir } from "./_helpers.ts";

const HOLDER = fileURLToPath(new URL("./_lock_holder.ts", import.meta.url));
const linux = process.platform === "linux";

/** A live process that is not this one (and holds nothing). */
async function withSleeper(fn: (child: ChildProcess) => Promise<void>): Promise<void> {
  const child = spawn("sleep", ["30"], { stdio: "ignore" });
  await new Promise((resolve, reject) => child.once("spawn", resolve).once("error", reject));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    await fn(child);
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}

/** Takes the lock (waiting at most `timeoutMs`) and reports how long that took. */
async function timeToLock(path: string, timeoutMs: number): Promise<number> {
  const started = performance.now();
  await withFileLock(path, () => Promise.resolve(), { what: "tape t", timeoutMs });
  return performance.now() - started;
}

test("a lock naming a live PID with another start time is taken over at once", {
  skip: !linux && "needs /proc",
}, () =>
  withDir((dir) =>
    withSleeper(async (child) => {
      const path = join(dir, "t.jsonl.lock");
      const { startTicks, bootId } = identityOf(child.pid!);
      assert.ok(startTicks && bootId);
      await writeFile(path, `${child.pid}:old:${Number(startTicks) + 1}:${bootId}`);
      assert.ok(await timeToLock(path, 10_000) < 1_000);
      await assert.rejects(readFile(path), { code: "ENOENT" });
    })
  ));

test("a lock naming a live PID under another boot id is taken over at once", {
  skip: !linux && "needs /proc",
}, () =>
  withDir((dir) =>
    withSleeper(async (child) => {
      const path = join(dir, "t.jsonl.lock");
      const { startTicks } = identityOf(child.pid!);
      const otherBoot = "00000000-0000-4000-8000-000000000000";
      await writeFile(path, `${child.pid}:old:${startTicks}:${otherBoot}`);
      assert.ok(await timeToLock(path, 10_000) < 1_000);
    })
  ));

test("a lock naming a live process with its own start time and boot id is respected", {
  skip: !linux && "needs /proc",
}, () =>
  withDir((dir) =>
    withSleeper(async (child) => {
      const path = join(dir, "t.jsonl.lock");
      const { startTicks, bootId } = identityOf(child.pid!);
      const content = `${child.pid}:held:${startTicks}:${bootId}`;
      await writeFile(path, content);
      const error = await timeToLock(path, 300).then(() => null, (e) => e);
      assert.ok(error instanceof BubError && error.kind === "temporary", String(error));
      assert.match(error.message, /Cannot lock tape t: lock file .* is held by/);
      assert.equal(await readFile(path, "utf8"), content);
    })
  ));

test("an older pid:token lock is stale when its PID's process started after the file was written", {
  skip: !linux && "needs /proc",
}, () =>
  withDir((dir) =>
    withSleeper(async (child) => {
      const path = join(dir, "t.jsonl.lock");
      await writeFile(path, `${child.pid}:legacy`);
      const error = await timeToLock(path, 300).then(() => null, (e) => e);
      assert.ok(error instanceof BubError, "a fresh legacy lock of a live PID is respected");
      const anHourAgo = new Date(Date.now() - 3_600_000);
      await utimes(path, anHourAgo, anHourAgo);
      assert.ok(await timeToLock(path, 10_000) < 1_000);
    })
  ));

test("a lock held by a live real process is respected until that process dies", () =>
  withDir(async (dir) => {
    const path = join(dir, "t.jsonl.lock");
    const args = "Deno" in globalThis ? ["run", "-A", HOLDER, path] : [HOLDER, path];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on("data", (chunk) => String(chunk).includes("held") && resolve());
        child.once("exit", (code) => reject(new Error(`holder exited early (${code})`)));
      });
      const error = await timeToLock(path, 300).then(() => null, (e) => e);
      assert.ok(error instanceof BubError && error.kind === "temporary", String(error));
      assert.match(await readFile(path, "utf8"), new RegExp(`^${child.pid}:`));
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
    assert.ok(await timeToLock(path, 10_000) < 1_000);
  }));

test("FileTapeStore appends at once past a lock left by an earlier process with this PID", {
  skip: !linux && "needs /proc",
}, () =>
  withDir(async (dir) => {
    // A container restart: the new process got the PID the lock names, and has another start.
    const { startTicks, bootId } = identityOf(process.pid);
    await writeFile(
      join(dir, "a__b.jsonl.lock"),
      `${process.pid}:before-restart:${Number(startTicks) - 1}:${bootId}`,
    );
    const store = new FileTapeStore(dir);
    const started = performance.now();
    await store.append("a__b", messageEntry({ role: "user", content: "hi" }));
    assert.ok(performance.now() - started < 1_000);
    assert.equal((await new TapeQuery("a__b", store).all()).length, 1);
    await store.close();
  }));
