/**
 * Private: the cgroups of a sandboxed session, where this process may create them: a `pids`
 * cgroup bounding its processes when Bub runs as root (RLIMIT_NPROC does not bind uid 0: the
 * kernel exempts the initial user's processes, even inside a user namespace) and a `memory`
 * cgroup bounding the resident memory of all its processes together (RLIMIT_AS bounds address
 * space only, and Deno needs more than 32 GiB of that to start).
 *
 * cgroup v2 (`/sys/fs/cgroup/cgroup.controllers`): one child of Bub's own cgroup, with `memory.max`
 * (and `memory.swap.max` 0) and `pids.max`, where its parent delegates those controllers. cgroup v1:
 * a child of Bub's own cgroup in the `memory` hierarchy (`memory.limit_in_bytes`, and
 * `memory.memsw.limit_in_bytes` where swap is accounted) and one in the `pids` hierarchy (root
 * only). Each is probed once by creating, limiting and removing a child. Where neither works the
 * memory limit falls back to RLIMIT_AS (`prlimit --as`), and a root Bub's process limit to none.
 *
 * A command joins the cgroups before it starts: a shell writes its own pid into each, then
 * executes the rest of the argv in the same process.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { readdirQuiet } from "../_internal/read_dir.ts";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import process from "node:process";

const ROOT = "/sys/fs/cgroup";

/** Which bound a session's memory gets. */
export type MemoryBound =
  | { kind: "cgroup v2" | "cgroup v1"; file: string }
  | { kind: "rlimit"; why: string };

/** Bub's own cgroup path in `controller`'s v1 hierarchy, or in the v2 one (`""`). */
function ownCgroup(controller: string): string | null {
  try {
    for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
      const [, controllers, path] = line.split(":");
      if (path === undefined) continue;
      if (controller === "" ? controllers === "" : controllers!.split(",").includes(controller)) {
        return path;
      }
    }
  } catch { /* not Linux */ }
  return null;
}

/** True when a child of `parent` can be created and `files` written in it (it is removed). */
function writable(parent: string, files: Record<string, string>): boolean {
  const probe = join(parent, `bub-probe-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  try {
    for (const [name, value] of Object.entries(files)) writeFileSync(join(probe, name), value);
    return true;
  } catch {
    return false;
  } finally {
    try {
      rmdirSync(probe);
    } catch { /* removed below by a sweep */ }
  }
}

interface Support {
  /** Where a session's memory cgroup goes, and its version. */
  memory: { parent: string; version: 1 | 2 } | null;
  /** Why there is none. */
  memoryWhy: string;
  /** Where a root Bub's pids cgroup goes. */
  pids: { parent: string; version: 1 | 2 } | null;
}

let support: Support | null = null;

function probe(): Support {
  if (support) return support;
  const out: Support = { memory: null, memoryWhy: "", pids: null };
  const root = process.getuid?.() === 0;
  if (existsSync(join(ROOT, "cgroup.controllers"))) {
    const own = ownCgroup("");
    const parent = own === null ? null : join(ROOT, own);
    const enabled = parent === null ? "" : readText(join(parent, "cgroup.subtree_control"));
    if (
      parent !== null && /\bmemory\b/.test(enabled) && writable(parent, { "memory.max": "max" })
    ) {
      out.memory = { parent, version: 2 };
    } else {
      out.memoryWhy = `cgroup v2 does not delegate the memory controller to ${parent ?? "Bub"}`;
    }
    if (
      root && parent !== null && /\bpids\b/.test(enabled) && writable(parent, { "pids.max": "1" })
    ) {
      out.pids = { parent, version: 2 };
    }
  } else {
    const own = ownCgroup("memory");
    const parent = own === null ? null : join(ROOT, "memory", own);
    if (parent !== null && writable(parent, { "memory.limit_in_bytes": String(1024 ** 3) })) {
      out.memory = { parent, version: 1 };
    } else {
      out.memoryWhy = parent === null
        ? "no cgroup v1 memory hierarchy"
        : `${parent} is not writable by this user`;
    }
    const pids = join(ROOT, "pids");
    if (root && writable(pids, { "pids.max": "1" })) out.pids = { parent: pids, version: 1 };
  }
  support = out;
  return out;
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** The bound a session's memory gets on this host (probed once). */
export function memoryBound(): MemoryBound {
  const found = probe().memory;
  if (found === null) return { kind: "rlimit", why: probe().memoryWhy };
  return found.version === 2
    ? { kind: "cgroup v2", file: "memory.max" }
    : { kind: "cgroup v1", file: "memory.limit_in_bytes" };
}

/** True when this process is root and can create pids cgroups (probed once). */
export function rootPidsCgroupUsable(): boolean {
  return probe().pids !== null;
}

const swept = new Set<string>();

/** Removes the empty cgroups that Bub processes no longer running left behind in `parent`. */
function sweep(parent: string): void {
  if (swept.has(parent)) return;
  swept.add(parent);
  for (const name of readdirQuiet(parent)) {
    const pid = /^bub-(?:probe-)?(\d+)-/.exec(name)?.[1];
    if (pid === undefined || existsSync(`/proc/${pid}`)) continue;
    try {
      rmdirSync(join(parent, name));
    } catch { /* still busy: the next sweep */ }
  }
}

function create(parent: string, files: Record<string, string>): string {
  sweep(parent);
  // Random: several module instances (test workers) can share one pid.
  const dir = join(parent, `bub-${process.pid}-${randomUUID().slice(0, 8)}`);
  mkdirSync(dir);
  try {
    for (const [name, value] of Object.entries(files)) {
      if (existsSync(join(dir, name))) writeFileSync(join(dir, name), value);
    }
  } catch (error) {
    rmdirSync(dir);
    throw error;
  }
  return dir;
}

/**
 * The cgroups of a new session bounding `processes` (a root Bub only) and `memoryBytes`, where
 * the host lets this process create them; their directories (none: nothing applies). The memory
 * bound is then the cgroup's, not RLIMIT_AS.
 */
export function createSessionCgroups(
  limits: { processes: number | null; memoryBytes: number | null },
): { dirs: string[]; memory: boolean } {
  const found = probe();
  const dirs: string[] = [];
  let memoryFiles: Record<string, string> | null = null;
  if (limits.memoryBytes !== null) {
    const bytes = String(Math.floor(limits.memoryBytes));
    memoryFiles = found.memory?.version === 2
      ? { "memory.max": bytes, "memory.swap.max": "0" }
      : { "memory.limit_in_bytes": bytes, "memory.memsw.limit_in_bytes": bytes };
  }
  const pidsFiles: Record<string, string> | null = limits.processes === null
    ? null
    : { "pids.max": String(Math.floor(limits.processes)) };
  let memory = false;
  if (found.memory && found.memory.version === 2 && found.pids?.parent === found.memory.parent) {
    // One v2 cgroup holds both.
    if (memoryFiles || pidsFiles) {
      dirs.push(create(found.memory.parent, { ...memoryFiles, ...pidsFiles }));
      memory = memoryFiles !== null;
    }
    return { dirs, memory };
  }
  if (found.memory && memoryFiles) {
    dirs.push(create(found.memory.parent, memoryFiles));
    memory = true;
  }
  if (found.pids && pidsFiles) dirs.push(create(found.pids.parent, pidsFiles));
  return { dirs, memory };
}

/** The command prefix that moves the command (the rest of the argv) into `dirs` first. */
export function joinCgroupsArgv(dirs: readonly string[]): string[] {
  const script = 'n=$1; shift; while [ "$n" -gt 0 ]; do ' +
    'echo $$ > "$1/cgroup.procs" || exit 125; shift; n=$((n - 1)); done; exec "$@"';
  return ["/bin/sh", "-c", script, "bub-cgroups", String(dirs.length), ...dirs];
}

/**
 * Removes `dir` once its processes are gone (the kernel kills the sandbox's PID namespace when
 * its init exits; that takes a moment). Gives up silently after ~5 s.
 */
export async function removeCgroup(dir: string): Promise<void> {
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
