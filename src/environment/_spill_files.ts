/**
 * Private: where shell output spills to disk and how those files go away. Each shell manager
 * spills into one private folder `<tmpdir>/bub-output-<pid>-<random>` (mode 0700) named with the
 * pid of the process that owns it; the manager removes its files when their scope closes, and a
 * sweep at start removes the folders of processes that are gone (killed, crashed).
 *
 * @module
 */
import { mkdtempSync } from "node:fs";
import { lstat, readdir, rm, rmdir, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** The name of a spill folder: the prefix, the owner's pid, a dash, random characters. */
const SPILL_DIR = /^bub-output-(\d+)-[A-Za-z0-9]+$/;

/** Creates (once per call) a private folder `bub-output-<pid>-*` under the OS tmpdir. */
export function makeSpillDir(): string {
  return mkdtempSync(join(tmpdir(), `bub-output-${process.pid}-`));
}

/**
 * Removes the spill folders under `root` (default the OS tmpdir) whose owner process is gone,
 * and returns their paths. Folders of live processes (or of pids that cannot be checked), folders
 * of other users, symlinks and names without a pid are left alone.
 */
export async function removeStaleSpillDirs(root: string = tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(SPILL_DIR.exec(name)?.[1] ?? NaN);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || _alive(pid)) continue;
    const path = join(root, name);
    try {
      const info = await lstat(path);
      if (!info.isDirectory() || (process.getuid && info.uid !== process.getuid())) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

/**
 * Removes the spill files `paths` (missing ones are fine), then `dir` when given and empty.
 * Never throws.
 */
export async function removeSpillFiles(paths: Iterable<string>, dir: string | null): Promise<void> {
  await Promise.all([...paths].map((path) => unlink(path).catch(() => {})));
  if (dir !== null) await rmdir(dir).catch(() => {});
}

/** True unless signal 0 says no process has `pid` (a pid we may not signal is alive). */
function _alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== "ESRCH";
  }
}
