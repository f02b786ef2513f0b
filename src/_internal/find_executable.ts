/**
 * {@link findExecutable}, the `PATH` lookup a shell does (`execvp`), done ahead of a
 * spawn so that the spawn can go through a wrapper and still fail the runtime's own way when the
 * command is missing.
 *
 * @module
 */
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";

/** Where {@link findExecutable} looks. */
export interface FindExecutableOptions {
  /** The `PATH` value to search (colon-separated); null or absent searches nothing. */
  path?: string | null;
  /** The directory a relative path with a slash resolves against; null: the current one. */
  cwd?: string | null;
}

/**
 * The absolute path of the executable regular file `file` would run, or null when there is none.
 * A name with a slash is taken as a path (relative to `cwd`); a bare name is looked up in each
 * non-empty `PATH` entry in order.
 *
 * @example
 * ```ts ignore
 * findExecutable("sh", { path: "/usr/bin:/bin" }); // "/usr/bin/sh"
 * ```
 */
export function findExecutable(file: string, options: FindExecutableOptions = {}): string | null {
  if (file === "") return null;
  if (file.includes("/")) {
    const path = isAbsolute(file) ? file : resolve(options.cwd ?? ".", file);
    return _executable(path) ? path : null;
  }
  for (const dir of (options.path ?? "").split(":")) {
    if (dir === "") continue;
    const candidate = resolve(options.cwd ?? ".", dir, file);
    if (_executable(candidate)) return candidate;
  }
  return null;
}

function _executable(path: string): boolean {
  try {
    // A stat that does not throw first: most PATH entries miss, and a thrown error costs more.
    const info = statSync(path, { throwIfNoEntry: false });
    if (info === undefined || !info.isFile() || (info.mode & 0o111) === 0) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
