/**
 * Whose journal is an interrupted turn: `ownerAlive` on the owner tags of this process, of a
 * process that exited, of this machine before a reboot and of another machine.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { test } from "node:test";
import { markForkDone, markForkLive, ownerAlive, ownerTag } from "../../src/tape/fork_journal.ts";

test("this process's journal is live while its fork is open here, and interrupted after", () => {
  const tag = ownerTag();
  markForkLive("f-open");
  assert.equal(ownerAlive(tag, "f-open"), true);
  markForkDone("f-open");
  assert.equal(ownerAlive(tag, "f-open"), false);
  assert.equal(ownerAlive(tag, "never-opened"), false);
});

test("a journal of a process that exited, or of this machine before a reboot, is interrupted; another machine's cannot be told", () => {
  const [host, , ticks, boot] = ownerTag().split("/");
  const child = spawnSync(process.execPath, ["--version"]);
  assert.equal(child.status, 0);
  assert.equal(ownerAlive(`${host}/${child.pid}/${ticks}/${boot}`, "f"), false);
  if (boot !== "-") {
    assert.equal(ownerAlive(`${host}/${process.pid}/${ticks}/other-boot`, "f"), false);
  }
  assert.equal(ownerAlive(`another-host/${process.pid}/${ticks}/${boot}`, "f"), null);
  assert.equal(ownerAlive("not a tag", "f"), null);
});

test("a journal of another live process of this machine is not interrupted", () => {
  const [host, , , boot] = ownerTag().split("/");
  // The parent of this test process runs (the test runner or the shell).
  const tag = `${host}/${process.ppid}/-/${boot}`;
  assert.equal(ownerAlive(tag, "f"), true);
});
