/**
 * {@link probeSandbox}: whether this host can run sandboxed commands (on Linux `bwrap` and
 * `prlimit` present, user and PID namespaces allowed; on macOS `sandbox-exec`), asked once per
 * process by running `true` in a sandbox.
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
import { sandboxBackend } from "./sandbox_backend.ts";
import { SANDBOX_EXEC } from "./seatbelt_profile.ts";

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
 * True when `socat` is not on `PATH` (bubblewrap only): a sandbox then reaches no host at all, not
 * even a Telegram session's Bot API (see `sandbox_driver.ts`).
 */
export function egressRelayMissing(): boolean {
  // Seatbelt's commands reach the proxy's TCP port directly: no relay.
  if (sandboxBackend() === "seatbelt") return false;
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

/**
 * Why no sandbox backend runs on `platform` (see `sandbox_backend.ts`), or null when one may.
 *
 * @example
 * ```ts
 * import { unsupportedPlatform } from "./sandbox_probe.ts";
 * console.assert(unsupportedPlatform("linux") === null);
 * console.assert(unsupportedPlatform("win32")!.includes("no sandbox for win32"));
 * ```
 */
export function unsupportedPlatform(
  platform: string = process.platform,
  exists?: (path: string) => boolean,
): string | null {
  if (sandboxBackend(platform, exists) !== null) return null;
  if (platform === "darwin") {
    return `the macOS sandbox needs ${SANDBOX_EXEC} (Seatbelt), which this Mac does not have`;
  }
  return `there is no sandbox for ${platform}: Bub sandboxes commands on Linux (bubblewrap) and ` +
    "macOS (Seatbelt)";
}

/**
 * How to get the sandbox on `platform`: the install command on Linux, else what to set instead.
 *
 * @example
 * ```ts
 * import { sandboxRemedy } from "./sandbox_probe.ts";
 * console.assert(sandboxRemedy("linux").includes("apt-get install bubblewrap"));
 * ```
 */
export function sandboxRemedy(platform: string = process.platform): string {
  return platform === "linux"
    ? `install it with \`${SANDBOX_INSTALL_HINT}\``
    : "run Bub on Linux or macOS for a sandbox";
}

async function runProbe(inner: ProcessDriver): Promise<SandboxProbe> {
  const unsupported = unsupportedPlatform();
  if (unsupported !== null) return { ok: false, reason: unsupported };
  const seatbelt = sandboxBackend() === "seatbelt";
  const path = process.env.PATH ?? null;
  for (const name of seatbelt ? [] : ["bwrap", "prlimit"]) {
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
      reason: seatbelt
        ? `sandbox-exec cannot apply its profile: ${stderr.trim() || `exit ${code}`}`
        : `bwrap cannot create its namespaces: ${stderr.trim() || `exit ${code}`}`,
    };
  } catch (error) {
    return {
      ok: false,
      reason: `${seatbelt ? "sandbox-exec" : "bwrap"} cannot start: ${String(error)}`,
    };
  }
}
