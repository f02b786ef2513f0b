/**
 * `~` expansion for paths from settings, flags and tool arguments.
 *
 * @module
 */
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Expands a leading `~` (alone or followed by `/`) to `home` (default the user's home directory);
 * any other path (including `~user/...`) is returned unchanged.
 *
 * @example
 * ```ts
 * import { expandHome } from "./home.ts";
 * console.assert(expandHome("~/x", "/home/a") === "/home/a/x");
 * console.assert(expandHome("~", "/home/a") === "/home/a");
 * console.assert(expandHome("~b/x", "/home/a") === "~b/x");
 * ```
 */
export function expandHome(path: string, home: string = homedir()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return join(home, path.slice(2));
  return path;
}
