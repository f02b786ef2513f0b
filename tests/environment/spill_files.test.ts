import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import { ShellManager } from "../../src/environment/shell_manager.ts";
import { removeStaleSpillDirs } from "../../src/environment/_spill_files.ts";
import { FAST } from "./_helpers.ts";

const SPILLED = /the full output \([\d,]+ bytes\) is in (\S+)\]/;

function spillPathOf(text: string): string {
  const path = SPILLED.exec(text)?.[1];
  assert.ok(path, `no spill file named in ${JSON.stringify(text.slice(0, 200))}…`);
  return path;
}

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn("true", [], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

/** A stale-looking spill folder of `pid` under the OS tmpdir, holding one file. */
function spillDirOf(pid: number): string {
  const dir = mkdtempSync(join(tmpdir(), `bub-output-${pid}-`));
  writeFileSync(join(dir, "bash-00000000.log"), "old output\n");
  return dir;
}

describe("spill files of command output", () => {
  test("closing a scope removes its shells' spill files, finished ones too, and the folder", async () => {
    const shells = new ShellManager({ timings: FAST, outputMaxBytes: 2048 });
    const scope = shells.openScope();
    const first = spillPathOf(await shells.run({ command: "seq 1 5000" }));
    const second = await shells.start({ command: "seq 1 5000; sleep 300" });
    try {
      const deadline = Date.now() + 10_000;
      while (second.spillPath === null && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(second.spillPath, "the running shell spilled");
      assert.ok(existsSync(first) && existsSync(second.spillPath));
      assert.equal(dirname(first), dirname(second.spillPath));
      assert.match(basename(dirname(first)), new RegExp(`^bub-output-${process.pid}-`));
    } finally {
      await scope.close();
    }
    assert.equal(existsSync(first), false, "the finished shell's spill file is gone");
    assert.equal(existsSync(second.spillPath), false, "the running shell's spill file is gone");
    assert.equal(existsSync(dirname(first)), false, "the spill folder is gone");
  });

  test("a scope keeps its files while another scope of the manager still spills", async () => {
    const shells = new ShellManager({ timings: FAST, outputMaxBytes: 2048 });
    const outer = shells.openScope();
    try {
      const kept = spillPathOf(await shells.run({ command: "seq 1 5000" }));
      const inner = shells.openScope();
      const removed = spillPathOf(await shells.run({ command: "seq 1 5000" }));
      await inner.close();
      assert.equal(existsSync(removed), false);
      assert.equal(existsSync(kept), true, "the outer scope's file stays while it is open");
    } finally {
      await outer.close();
    }
  });

  test("a start removes spill folders of dead processes and keeps those of live ones", async () => {
    const live = spawn("sleep", ["30"], { stdio: "ignore" });
    const dead = await deadPid();
    const staleDir = spillDirOf(dead);
    const liveDir = spillDirOf(live.pid!);
    // A symlink named like a stale folder is not followed (nor removed).
    const target = mkdtempSync(join(tmpdir(), "bub-spill-target-"));
    writeFileSync(join(target, "keep"), "keep\n");
    const link = `${mkdtempSync(join(tmpdir(), `bub-output-${dead}-`))}x`;
    symlinkSync(target, link);
    try {
      const shells = new ShellManager();
      await using _scope = shells.openScope();
      const removed = await shells.removeStaleSpills();
      // Gone; by this sweep, or by another process's start sweeping the same tmpdir (tests run
      // in parallel), which is the same behaviour.
      assert.equal(existsSync(staleDir), false, `removed ${JSON.stringify(removed)}`);
      assert.equal(existsSync(join(liveDir, "bash-00000000.log")), true);
      assert.equal(existsSync(join(target, "keep")), true);
    } finally {
      live.kill("SIGKILL");
      for (const path of [staleDir, liveDir, target, link, link.slice(0, -1)]) {
        rmSync(path, { recursive: true, force: true });
      }
    }
  });

  test("the sweep ignores names without a pid and folders it cannot read", async () => {
    const root = mkdtempSync(join(tmpdir(), "bub-spill-root-"));
    try {
      mkdirSync(join(root, "bub-output-abcdef"));
      mkdirSync(join(root, `bub-output-${await deadPid()}-abcdef`));
      const removed = await removeStaleSpillDirs(root);
      assert.equal(removed.length, 1);
      assert.equal(existsSync(join(root, "bub-output-abcdef")), true);
      assert.deepEqual(await removeStaleSpillDirs(join(root, "missing")), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
