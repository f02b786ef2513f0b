/** Shared helpers of the environment tests: drivers to cover, group probes, temp dirs. */
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createDenoDriver, denoCommandAvailable } from "../../src/environment/deno_driver.ts";
import { createNodeDriver } from "../../src/environment/node_driver.ts";
import type { ProcessDriver } from "../../src/environment/process_driver.ts";
import type { ShellTimings } from "../../src/environment/managed_shell.ts";

/** Every driver usable here: both on Deno, the node driver elsewhere. */
export function drivers(): ProcessDriver[] {
  return denoCommandAvailable() ? [createDenoDriver(), createNodeDriver()] : [createNodeDriver()];
}

/** Short termination timings so the suite stays fast. */
export const FAST: ShellTimings = {
  pollIntervalMs: 10,
  terminateTimeoutMs: 400,
  drainTimeoutMs: 300,
};

/** True while any process of group `pgid` exists (signal 0). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "ESRCH") return false;
    throw error;
  }
}

/** Waits until `check()` is true, polling; throws after `ms`. */
export async function eventually(
  check: () => boolean,
  ms = 5000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Kills group `pgid` if it still exists (test cleanup). */
export function killGroup(pgid: number | null): void {
  if (pgid === null) return;
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // gone
  }
}

/** Runs `fn` with a fresh temp directory, removed afterwards. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "bub-env-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads a whole byte stream as text. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

/**
 * Pids of group `pgid` that are alive, i.e. not zombies waiting to be reaped (Linux `/proc`);
 * where `/proc` is missing, `[pgid]` while the group exists at all.
 */
export function liveMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return groupAlive(pgid) ? [pgid] : [];
  }
  const live: number[] = [];
  for (const pid of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may contain spaces, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") {
      live.push(Number(pid));
    }
  }
  return live;
}
