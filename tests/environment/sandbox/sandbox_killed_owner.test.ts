/**
 * A Bub process SIGKILLed while its session's spare sandbox is starting leaves nothing behind.
 * bwrap's init waits for every process of its sandbox; the allowlist's `socat` relay, started in
 * the background, outlived the command whenever the owner died at the wrong moment (8 of 20 kills
 * left a bwrap and a socat running for good). The relay now dies with the command.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { runtimeCommand } from "../../cli/_spawn.ts";
import { processesIn, SKIP } from "./_helpers.ts";
import { findExecutable } from "../../../src/_internal/find_executable.ts";

const LOOP = join(dirname(fileURLToPath(import.meta.url)), "_spare_loop.ts");
const NO_SOCAT = findExecutable("socat", { path: process.env.PATH ?? null }) === null
  ? "socat is not installed (the allowlist's relay needs it)"
  : false;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a session's owner killed while spares start leaves no sandbox process behind", {
  skip: SKIP || NO_SOCAT,
}, async () => {
  const left: string[] = [];
  for (let round = 0; round < 8; round++) {
    const [file, ...args] = runtimeCommand(LOOP);
    const child = spawn(file!, args, { stdio: ["ignore", "pipe", "inherit"] });
    const workspace = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stdout!.on("data", (chunk) => {
        text += chunk;
        if (text.includes("\n")) resolve(text.split("\n")[0]!);
      });
      child.once("exit", () => reject(new Error("the loop exited before it started")));
    });
    // Spread the kill over the spares' start-up (a few ms to ~100 ms each).
    await sleep(150 + round * 37);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    // What the kill leaves must end on its own (bwrap's --die-with-parent, the relay's death signal).
    let pids = processesIn(workspace);
    for (let i = 0; i < 40 && pids.length > 0; i++) {
      await sleep(50);
      pids = processesIn(workspace);
    }
    if (pids.length > 0) {
      left.push(`round ${round}: ${pids.length} left`);
      for (const pid of pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
    }
    rmSync(dirname(dirname(workspace)), { recursive: true, force: true });
  }
  assert.deepEqual(left, []);
});
