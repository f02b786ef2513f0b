/**
 * The read side of `FileTapeStore`'s files: a tape file's `stat`, and running a read on it open.
 *
 * @module
 */
import { closeSync, existsSync, fstatSync, openSync, type Stats, statSync } from "node:fs";

/** The `code` of a file-system error (`ENOENT`, ...), if any. */
export function errorCode(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}

/**
 * `stat` of a tape file (undefined when missing). With `probe` (no cache of the tape: a new tape
 * is likely) an `existsSync` answers a missing file first: Deno's `statSync` builds and catches
 * an error for one (~0.05 ms), `existsSync` does not.
 */
export function statTape(path: string, probe: boolean): Stats | undefined {
  if (probe && !existsSync(path)) return undefined;
  return statSync(path, { throwIfNoEntry: false });
}

/**
 * Runs `fn` on `path` opened for reading, with its size and inode, and closes it; null when the
 * file is missing. Other errors are thrown as they are.
 */
export async function withOpenFile<T>(
  path: string,
  fn: (fd: number, size: number, ino: number) => Promise<T>,
): Promise<T | null> {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  }
  try {
    const { size, ino } = fstatSync(fd);
    return await fn(fd, size, Number(ino ?? 0) || 0);
  } finally {
    closeSync(fd);
  }
}
