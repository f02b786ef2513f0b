/**
 * Private: where a framework lives — its workspace, home and config file — from the options and
 * the environment (`BUB_HOME`, `BUB_CONFIG`).
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { expandHome } from "../_internal/home.ts";

/** `path` absolute and with symlinks resolved (as given when it does not exist). */
export function resolveReal(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** The resolved paths of a framework. */
export interface FrameworkPaths {
  /** The workspace (absolute, resolved). */
  readonly workspace: string;
  /** Runtime data directory. */
  readonly home: string;
  /** The config file. */
  readonly configFile: string;
}

/**
 * The workspace (default: the current directory), home (default `BUB_HOME`, else `~/.bub`) and
 * config file (default `BUB_CONFIG`, else `<home>/config.yml`).
 */
export function frameworkPaths(
  options: { workspace?: string; home?: string; configFile?: string },
): FrameworkPaths {
  const workspace = resolveReal(options.workspace ?? process.cwd());
  const home = resolve(expandHome(options.home || process.env.BUB_HOME || `${homedir()}/.bub`));
  const configFile = options.configFile || process.env.BUB_CONFIG || join(home, "config.yml");
  return { workspace, home, configFile: resolve(expandHome(configFile)) };
}
