/**
 * Private: the file that carries the `bub` process's secrets across its `execve` (see
 * `secret_handoff.ts`). It lives in a private folder (0700, owned by the user, not a symlink) on
 * a memory file system when there is one: `$XDG_RUNTIME_DIR/bub`, else `/dev/shm/bub-<uid>`,
 * else `<tmpdir>/bub-<uid>`. The file is `<pid>-<32 hex>`, created 0600 with `O_EXCL` and
 * `O_NOFOLLOW`, and unlinked by the new image before it reads it; files of dead pids (a start
 * killed between the two steps) are removed by the next start.
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { readdirQuiet } from "../_internal/read_dir.ts";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
import process from "node:process";

/** The variable naming the handoff file in the new image's environment. */
export const HANDOFF_ENV = "BUB_ENV_HANDOFF";

const FILE_NAME = /^(\d+)-[0-9a-f]{32}$/;

function uid(): number {
  return process.getuid?.() ?? -1;
}

/** Why `dir` is not a private folder of this user, or null when it is. */
function notPrivate(dir: string): string | null {
  const stat = lstatSync(dir);
  if (stat.isSymbolicLink() || !stat.isDirectory()) return `${dir} is not a folder`;
  if (stat.uid !== uid()) return `${dir} belongs to uid ${stat.uid}`;
  if ((stat.mode & 0o077) !== 0) return `${dir} has mode ${(stat.mode & 0o777).toString(8)}`;
  return null;
}

/** The candidate folders, best first. */
function candidates(env: Readonly<Record<string, string | undefined>>): string[] {
  const list: string[] = [];
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && isAbsolute(runtime)) list.push(join(runtime, "bub"));
  list.push(`/dev/shm/bub-${uid()}`, join(tmpdir(), `bub-${uid()}`));
  return list;
}

/**
 * The private handoff folder, created 0700 when missing.
 *
 * @throws {Error} naming every candidate and why it cannot be used
 */
export function handoffDir(env: Readonly<Record<string, string | undefined>>): string {
  const problems: string[] = [];
  for (const dir of candidates(env)) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST") {
        problems.push(`${dir}: ${(error as Error).message}`);
        continue;
      }
    }
    try {
      const problem = notPrivate(dir);
      if (problem === null) return dir;
      problems.push(problem);
    } catch (error) {
      problems.push(`${dir}: ${(error as Error).message}`);
    }
  }
  throw new Error(`no private folder for the handoff file (${problems.join("; ")})`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== "ESRCH";
  }
}

/** Removes the handoff files in `dir` whose process is gone. Never throws. */
export function removeStaleHandoffs(dir: string): void {
  for (const name of readdirQuiet(dir)) {
    const match = FILE_NAME.exec(name);
    if (match === null || alive(Number(match[1]))) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // Another start removed it first.
    }
  }
}

/** Writes `secrets` to a new handoff file in `dir` and returns its path. */
export function writeHandoff(dir: string, secrets: Readonly<Record<string, string>>): string {
  const random = Array.from(crypto.getRandomValues(new Uint8Array(16)))
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");
  const path = join(dir, `${process.pid}-${random}`);
  const flags = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;
  const fd = openSync(path, flags, 0o600);
  try {
    const bytes = new TextEncoder().encode(JSON.stringify(secrets));
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
  } catch (error) {
    closeSync(fd);
    unlinkSync(path);
    throw error;
  }
  closeSync(fd);
  return path;
}

/**
 * Unlinks and then reads the handoff file at `path`, which must be this process's (`<pid>-...`)
 * in a private folder of this user.
 *
 * @throws {Error} saying what is wrong with the path or the file
 */
export function takeHandoff(path: string): Record<string, string> {
  const match = FILE_NAME.exec(basename(path));
  if (!isAbsolute(path) || match === null || Number(match[1]) !== process.pid) {
    throw new Error(`${path} is not a handoff file of process ${process.pid}`);
  }
  const problem = notPrivate(dirname(path));
  if (problem !== null) throw new Error(problem);
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    unlinkSync(path);
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.uid !== uid() || (stat.mode & 0o077) !== 0) {
      throw new Error(`${path} is not a private file of uid ${uid()}`);
    }
    const data: unknown = JSON.parse(readFileSync(fd, "utf8"));
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      throw new Error(`${path} does not hold a map of variables`);
    }
    const secrets: Record<string, string> = {};
    for (const [name, value] of Object.entries(data)) {
      if (typeof value === "string") secrets[name] = value;
    }
    return secrets;
  } finally {
    closeSync(fd);
  }
}
