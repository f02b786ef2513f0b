/**
 * {@link createSandboxDriver}: a {@link ProcessDriver} decorator that starts every process inside
 * a bubblewrap sandbox: `prlimit <limits> -- bwrap <profile> -- <file> <args>`.
 *
 * The started child (the group leader the inner driver signals) is `bwrap` itself (for a root
 * Bub, a shell that joins the session's pids cgroup and executes `prlimit` first). It runs the
 * command as the init of a fresh PID namespace with `--die-with-parent`, so a signal that ends
 * the group (TERM or KILL) ends `bwrap`, and with it every process inside, background jobs
 * included; when the command itself exits, its init exits and the kernel kills what is left.
 * `bwrap` gets only the tool environment (`tool_env.ts`), so `/proc/1/environ` inside holds
 * nothing of Bub's.
 *
 * @module
 */
import type {
  DriverChild,
  DriverSpawnRequest,
  GroupSignal,
  ProcessDriver,
  SignalOutcome,
} from "./process_driver.ts";
import { bwrapArgs, prlimitArgs, type SandboxProfile } from "./sandbox_profile.ts";
import {
  createPidsCgroup,
  joinPidsCgroupArgv,
  removePidsCgroup,
  rootPidsCgroupUsable,
} from "./_sandbox_pids.ts";

/** Options of {@link createSandboxDriver}. */
export interface SandboxDriverOptions {
  /** The `bwrap` executable (default `bwrap` on `PATH`). */
  bwrap?: string;
  /** The `prlimit` executable (default `prlimit` on `PATH`). */
  prlimit?: string;
}

/** A {@link ProcessDriver} whose children run sandboxed; `profile` says what they reach. */
export interface SandboxDriver extends ProcessDriver {
  /** The profile every child runs under. */
  readonly profile: SandboxProfile;
  /** Releases what the driver holds (a root Bub's pids cgroup, once its processes are gone). */
  close(): Promise<void>;
}

/**
 * Wraps `inner` so every child runs in `profile`'s sandbox.
 *
 * @example
 * ```ts ignore
 * import { processDriver } from "./driver_select.ts";
 * import { createSandboxDriver } from "./sandbox_driver.ts";
 * import { DEFAULT_SANDBOX_LIMITS } from "./sandbox_profile.ts";
 * const driver = createSandboxDriver(processDriver(), {
 *   workspace: "/tmp", network: "off", readOnly: [], readWrite: [], hidden: [], home: null,
 *   limits: DEFAULT_SANDBOX_LIMITS,
 * });
 * const child = await driver.spawn({ file: "ls", args: ["/"], cwd: "/tmp", env: null });
 * console.assert((await child.exited) === 0);
 * ```
 */
export function createSandboxDriver(
  inner: ProcessDriver,
  profile: SandboxProfile,
  options: SandboxDriverOptions = {},
): SandboxDriver {
  const bwrap = options.bwrap ?? "bwrap";
  const prlimit = options.prlimit ?? "prlimit";
  let base: string[] | null = null;
  /**
   * A root Bub's pids cgroup, shared by the driver's children: one per session, because a
   * cgroup per command cost ~10 ms a command (mkdir, rmdir after the namespace is torn down).
   */
  let cgroup: string | null | undefined;
  return {
    name: `${inner.name}+bwrap`,
    profile,
    async spawn(request: DriverSpawnRequest): Promise<DriverChild> {
      base ??= bwrapArgs(profile);
      const cwd = request.cwd ?? profile.workspace;
      const limits = prlimitArgs(profile.limits);
      const processes = profile.limits.processes;
      cgroup ??= processes !== null && rootPidsCgroupUsable() ? createPidsCgroup(processes) : null;
      const argv = [
        ...(cgroup === null ? [] : joinPidsCgroupArgv(cgroup)),
        ...(limits.length > 0 ? [prlimit, ...limits, "--"] : []),
        bwrap,
        ...base,
        "--chdir",
        cwd,
        "--",
        request.file,
        ...request.args,
      ];
      const [file, ...args] = argv as [string, ...string[]];
      // The host's TMPDIR is not inside; the private /tmp is.
      const env = { ...(request.env ?? {}), TMPDIR: "/tmp" };
      return await inner.spawn({ ...request, file, args, cwd: profile.workspace, env });
    },
    async close(): Promise<void> {
      const dir = cgroup;
      cgroup = undefined;
      // Not awaited: the retries wait on unref'd timers (a leftover is swept at the next start).
      if (dir) void removePidsCgroup(dir);
      await Promise.resolve();
    },
    signalGroup(pgid: number, signal: GroupSignal): SignalOutcome {
      return inner.signalGroup(pgid, signal);
    },
  };
}
