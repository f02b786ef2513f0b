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
 * import assert from "node:assert/strict";
 * import { expandHome } from "./home.ts";
 * assert.ok(expandHome("~/x", "/home/a") === "/home/a/x");
 * assert.ok(expandHome("~", "/home/a") === "/home/a");
 * assert.ok(expandHome("~b/x", "/home/a") === "~b/x");
 * ```
 */
export function expandHome(path: string, home?: string): string {
  // The home directory is looked up only for a `~` path: most paths have none, and the lookup
  // is a runtime call (an op on Deno) on every turn's workspace.
  if (path.charCodeAt(0) !== 126) return path; // not `~`
  if (path === "~") return home ?? homedir();
  if (path.startsWith("~/")) return join(home ?? homedir(), path.slice(2));
  return path;
}
