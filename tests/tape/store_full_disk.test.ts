/**
 * A full disk under the file store (a real 64 KiB tmpfs): an append that does not fit fails with
 * an error naming the store and the file, the tape file keeps exactly what it held (no part of
 * the batch), and with `retrySeconds` the append waits and lands once space is freed.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeSync } from "node:fs";
import { open, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { BubError } from "../../src/kernel/errors.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { until } from "./_helpers.ts";

/** A mounted 64 KiB tmpfs, or null (with the reason printed) where mounting is not possible. */
function smallDisk(): { dir: string; [Symbol.dispose](): void } | null {
  if (process.platform !== "linux" || process.getuid?.() !== 0) {
    console.log("SKIP full disk: needs root on Linux to mount a tmpfs");
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), "bub-full-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k,mode=700", "tmpfs", dir]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    console.log(`SKIP full disk: cannot mount a tmpfs: ${(error as Error).message}`);
    return null;
  }
  return {
    dir,
    [Symbol.dispose]() {
      execFileSync("umount", ["-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the disk of `path`'s directory with a file at `path` until writes fail with ENOSPC. */
async function fill(path: string): Promise<void> {
  const file = await open(path, "w");
  const chunk = new Uint8Array(1024).fill(0x78);
  try {
    for (;;) writeSync(file.fd, chunk);
  } catch (error) {
    assert.equal((error as { code?: string }).code, "ENOSPC");
  } finally {
    await file.close();
  }
}

/** A message too long for what is left on the disk. */
const BIG = "x".repeat(6000);

/** Mounts a disk for one test (the first probe said it can). */
function mustMount(): { dir: string; [Symbol.dispose](): void } {
  const made = smallDisk();
  if (!made) throw new Error("a tmpfs mounted before but not now");
  return made;
}

const probe = smallDisk();
probe?.[Symbol.dispose]();
if (probe) {
  test("a full disk: the append fails naming the file, and the tape file keeps what it held", async () => {
    using disk = mustMount();
    const dir = join(disk.dir, "tapes");
    const store = new FileTapeStore(dir);
    try {
      await store.append("a__b", messageEntry({ role: "user", content: "kept" }));
      const before = readFileSync(store.pathOf("a__b"));
      await fill(join(disk.dir, "filler"));
      await assert.rejects(
        store.append("a__b", messageEntry({ role: "assistant", content: BIG })),
        (error: unknown) => {
          assert.ok(BubError.isInstance(error), String(error));
          assert.equal(error.kind, "temporary");
          assert.equal(error.details?.reason, "store_unavailable");
          assert.equal(error.details?.store, "file");
          assert.ok(error.message.includes(store.pathOf("a__b")), error.message);
          assert.match(error.message, /ENOSPC/);
          assert.equal((error.cause as { code?: string }).code, "ENOSPC");
          return true;
        },
      );
      // Not one byte of the failed batch stays: the file is what it was.
      assert.deepEqual(readFileSync(store.pathOf("a__b")), before);
      await using fresh = new FileTapeStore(dir);
      const entries = await new TapeQuery("a__b", fresh).all();
      assert.deepEqual(entries.map((entry) => [entry.id, entry.payload.content]), [[1, "kept"]]);
      // Space back: the next append lands with the next id.
      await unlink(join(disk.dir, "filler"));
      await store.append("a__b", messageEntry({ role: "user", content: "after" }));
      const after = await new TapeQuery("a__b", fresh).all();
      assert.deepEqual(after.map((entry) => [entry.id, entry.payload.content]), [
        [1, "kept"],
        [2, "after"],
      ]);
    } finally {
      await store.close();
    }
  });

  test("a full disk with retrySeconds: the append waits (warning once) and lands when space is freed", async () => {
    using disk = mustMount();
    const root = disk.dir;
    await using logs = await captureLogs();
    const dir = join(root, "tapes");
    await using store = new FileTapeStore(dir, { retrySeconds: 60 });
    await store.append("a__b", messageEntry({ role: "user", content: "kept" }));
    await fill(join(root, "filler"));
    let settled = false;
    const pending = store.append("a__b", messageEntry({ role: "assistant", content: BIG }))
      .finally(() => settled = true);
    pending.catch(() => {}); // awaited below; a failed assertion first must not leave it unhandled
    // The store says it is waiting, naming itself, before anything is freed.
    await until(
      () => logs.warnings().some((line) => line.includes("unreachable")),
      "the retry warning",
      10_000,
    );
    assert.equal(settled, false);
    assert.match(
      logs.warnings().join("\n"),
      new RegExp(`tape store "${dir}" unreachable \\(ENOSPC.*\\); retrying for up to 60 s`),
    );
    await unlink(join(root, "filler"));
    await pending;
    await using fresh = new FileTapeStore(dir);
    const entries = await new TapeQuery("a__b", fresh).all();
    assert.deepEqual(entries.map((entry) => [entry.id, entry.payload.role]), [
      [1, "user"],
      [2, "assistant"],
    ]);
    assert.equal(entries[1]!.payload.content, BIG);
  });
}
