/**
 * {@link sandboxBackend}: which OS sandbox runs here, bubblewrap on Linux or Seatbelt
 * (`sandbox-exec`) on macOS, or none.
 *
 * @module
 */
import { existsSync } from "node:fs";
import process from "node:process";
import { SANDBOX_EXEC } from "./seatbelt_profile.ts";

/** An OS sandbox Bub can start commands in. */
export type SandboxBackend = "bwrap" | "seatbelt";

/**
 * The sandbox of `platform` (default: this host's): `bwrap` on Linux (whether it is installed is
 * the probe's question), `seatbelt` on macOS where `/usr/bin/sandbox-exec` exists, else null.
 *
 * @example
 * ```ts
 * import { sandboxBackend } from "./sandbox_backend.ts";
 * console.assert(sandboxBackend("linux") === "bwrap" && sandboxBackend("win32") === null);
 * console.assert(sandboxBackend("darwin", () => true) === "seatbelt");
 * ```
 */
export function sandboxBackend(
  platform: string = process.platform,
  exists: (path: string) => boolean = existsSync,
): SandboxBackend | null {
  if (platform === "linux") return "bwrap";
  if (platform === "darwin" && exists(SANDBOX_EXEC)) return "seatbelt";
  return null;
}
