/**
 * {@link probeSandbox}: whether this host can run sandboxed commands (`bwrap` and `prlimit`
 * present, user and PID namespaces allowed), asked once per process by running `true` in a
 * sandbox.
 *
 * @module
 */
import { tmpdir } from "node:os";
import process from "node:process";
import { processDriver } from "./driver_select.ts";
import { findExecutable } from "../_internal/find_executable.ts";
import type { ProcessDriver } from "./process_driver.ts";
import { createSandboxDriver } from "./sandbox_driver.ts";
import { DEFAULT_SANDBOX_LIMITS } from "./sandbox_profile.ts";
import { memoryBound } from "./_sandbox_cgroups.ts";

/**
 * Which bound `sandbox_memory_mb` sets on this host: a cgroup's memory limit for all of a
 * session's processes together (`memory.max` on cgroup v2, `memory.limit_in_bytes` on v1) where
 * Bub may create cgroups, else RLIMIT_AS, the address space of each process (with why).
 *
 * @example
 * ```ts ignore
 * import { sandboxMemoryBound } from "./sandbox_probe.ts";
 * const bound = sandboxMemoryBound();
 * console.log(bound.kind === "rlimit" ? `address space only: ${bound.why}` : bound.file);
 * ```
 */
export function sandboxMemoryBound():
  | { kind: "cgroup v2" | "cgroup v1"; file: string }
  | { kind: "rlimit"; why: string } {
  return memoryBound();
}

/** The outcome of {@link probeSandbox}. */
export type SandboxProbe = { ok: true } | { ok: false; reason: string };

/**
 * The command that installs what the sandbox needs on Debian and Ubuntu (`socat` relays a
 * sandbox's one door to the egress proxy: a Telegram session's Bot API, `sandbox_network` hosts).
 */
export const SANDBOX_INSTALL_HINT = "apt-get install bubblewrap socat";

/**
 * True when `socat` is not on `PATH`: a sandbox then reaches no host at all, not even a Telegram
 * session's Bot API (see `sandbox_driver.ts`).
 */
export function egressRelayMissing(): boolean {
  return findExecutable("socat", { path: process.env.PATH ?? null }) === null;
}

let probed: Promise<SandboxProbe> | null = null;

/**
 * Runs `true` in a sandbox once per process (later calls share the answer): `ok`, or why not.
 *
 * @example
 * ```ts ignore
 * import { probeSandbox } from "./sandbox_probe.ts";
 * const probe = await probeSandbox();
 * if (!probe.ok) console.log(probe.reason);
 * ```
 */
export function probeSandbox(driver: ProcessDriver = processDriver()): Promise<SandboxProbe> {
  probed ??= runProbe(driver);
  return probed;
}

async function runProbe(inner: ProcessDriver): Promise<SandboxProbe> {
  if (process.platform !== "linux") {
    return {
      ok: false,
      reason: `the sandbox needs Linux (bubblewrap), this is ${process.platform}`,
    };
  }
  const path = process.env.PATH ?? null;
  for (const name of ["bwrap", "prlimit"]) {
    if (findExecutable(name, { path }) === null) {
      return { ok: false, reason: `${name} is not installed (not found on PATH)` };
    }
  }
  const driver = createSandboxDriver(inner, {
    workspace: tmpdir(),
    network: "off",
    readOnly: [],
    readWrite: [],
    hidden: [],
    home: null,
    limits: { ...DEFAULT_SANDBOX_LIMITS, processes: null }, // no cgroup for one `true`
  }, { spare: false });
  try {
    const child = await driver.spawn({ file: "true", args: [], cwd: null, env: null });
    child.closeStdin();
    const [code, , stderr] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    if (code === 0) return { ok: true };
    return {
      ok: false,
      reason: `bwrap cannot create its namespaces: ${stderr.trim() || `exit ${code}`}`,
    };
  } catch (error) {
    return { ok: false, reason: `bwrap cannot start: ${String(error)}` };
  }
}
