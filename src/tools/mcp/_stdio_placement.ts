/**
 * Private: the keys of a stdio server that say where it runs (`sandbox`, `network`, `paths`; see
 * `src/builtin/mcp_sandbox.ts`), checked.
 *
 * @module
 */
import { parseAllowlist } from "../../environment/egress_proxy.ts";

/** Where a stdio server runs, as its config says (see `McpStdioServerConfig`). */
export interface StdioPlacement {
  sandbox?: boolean;
  network?: "off" | "on" | string[];
  paths?: string[];
}

/**
 * The `sandbox`, `network` and `paths` keys of a stdio server (absent ones stay absent); a bad one
 * is thrown by `fail` (config.ts's, so this file needs nothing of it).
 */
export function placement(
  name: string,
  value: Record<string, unknown>,
  fail: (key: string, problem: string, value: unknown) => never,
): StdioPlacement {
  const out: { sandbox?: boolean; network?: "off" | "on" | string[]; paths?: string[] } = {};
  if (value.sandbox !== undefined) {
    if (typeof value.sandbox !== "boolean") {
      fail(`${name}.sandbox`, "must be true or false", value.sandbox);
    }
    out.sandbox = value.sandbox;
  }
  const network = value.network;
  if (network === "off" || network === "on") out.network = network;
  else if (network !== undefined) {
    const hosts = typeof network === "string" ? network.split(",").map((h) => h.trim()) : network;
    if (
      !Array.isArray(hosts) || hosts.length === 0 ||
      hosts.some((host) => typeof host !== "string" || host === "")
    ) {
      fail(`${name}.network`, "must be off, on, or a list of hosts", network);
    }
    try {
      parseAllowlist(hosts as string[]);
    } catch (error) {
      fail(`${name}.network`, `has a bad host (${(error as Error).message})`, network);
    }
    out.network = hosts as string[];
  }
  if (value.paths !== undefined) {
    const paths = value.paths;
    if (!Array.isArray(paths) || paths.some((path) => typeof path !== "string" || path === "")) {
      fail(`${name}.paths`, "must be a list of paths", paths);
    }
    out.paths = paths as string[];
  }
  return out;
}
