/**
 * Stray helper files of file stores: the lock template (`.bub-lock.<pid>.<random>`) and spare
 * (`.bub-spare.<pid>.<random>`) a store removes when it closes stay behind when its process is
 * killed. A store closing removes those of processes that are gone. Removing one of a live
 * process (another PID namespace sharing the folder) costs it nothing but a new file: its held
 * locks are links of their own, a vanished template is made again and a vanished spare is
 * skipped (see `_lock_template.ts`, `_spare_file.ts`).
 *
 * @module
 */
import { unlinkSync } from "node:fs";
import { readdirQuiet } from "../../_internal/read_dir.ts";
import { join } from "node:path";
import process from "node:process";

/** Name prefixes of the helper files (each followed by `<pid>.<random>`). */
export const HELPER_PREFIXES: readonly string[] = [".bub-lock.", ".bub-spare."];

function _alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string } | null)?.code === "EPERM";
  }
}

/** The PID a helper file name carries, or null for any other name. */
export function helperPid(name: string): number | null {
  const prefix = HELPER_PREFIXES.find((prefix) => name.startsWith(prefix));
  if (prefix === undefined) return null;
  const pid = Number(name.slice(prefix.length).split(".")[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Removes the helper files in `directory` of processes that are gone (quietly, best effort). */
export function pruneStrayFiles(directory: string): void {
  for (const name of readdirQuiet(directory)) {
    const pid = helperPid(name);
    if (pid === null || pid === process.pid || _alive(pid)) continue;
    try {
      unlinkSync(join(directory, name));
    } catch {
      // Removed by another store meanwhile.
    }
  }
}
