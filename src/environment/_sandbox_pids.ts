/**
 * Private: a pids cgroup per sandboxed command when Bub runs as root. RLIMIT_NPROC does not
 * bind uid 0 (the kernel exempts the initial user's processes even inside a user namespace), so
 * a root Bub bounds a sandbox's processes with the cgroup v1 `pids` controller where it is
 * mounted writable; elsewhere only RLIMIT_NPROC applies (it binds every other uid).
 *
 * @module
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import process from "node:process";

const PIDS_ROOT = "/sys/fs/cgroup/pids";

let usable: boolean | null = null;
let counter = 0;

/** True when this process is root and can create pids cgroups (probed once). */
export function rootPidsCgroupUsable(): boolean {
  if (usable !== null) return usable;
  usable = false;
  if (process.getuid?.() !== 0) return usable;
  const probe = join(PIDS_ROOT, `bub-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    writeFileSync(join(probe, "pids.max"), "1");
    rmdirSync(probe);
    usable = true;
  } catch {
    try {
      rmdirSync(probe);
    } catch { /* never created */ }
  }
  return usable;
}

/** Removes the empty cgroups that Bub processes no longer running left behind. */
function sweep(): void {
  let names: string[];
  try {
    names = readdirSync(PIDS_ROOT);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^bub-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || existsSync(`/proc/${pid}`)) continue;
    try {
      rmdirSync(join(PIDS_ROOT, name));
    } catch { /* still busy: the next sweep */ }
  }
}

/**
 * A fresh pids cgroup limited to `max` processes; its directory. The first call sweeps the
 * cgroups of Bub processes that exited before theirs were empty.
 */
export function createPidsCgroup(max: number): string {
  if (counter === 0) sweep();
  // Random: several module instances (test workers) can share one pid.
  const dir = join(PIDS_ROOT, `bub-${process.pid}-${++counter}-${randomUUID().slice(0, 8)}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "pids.max"), String(max));
  return dir;
}

/**
 * The command prefix that moves the command into `dir` before it runs: a shell writes its own
 * pid into the cgroup, then executes the rest of the argv in the same process.
 */
export function joinPidsCgroupArgv(dir: string): string[] {
  return ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir];
}

/**
 * Removes `dir` once its processes are gone (the kernel kills the sandbox's PID namespace when
 * its init exits; that takes a moment). Gives up silently after ~5 s.
 */
export async function removePidsCgroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return;
      await new Promise((done) => {
        const timer = setTimeout(done, 50);
        (timer as { unref?: () => void }).unref?.();
      });
    }
  }
}
