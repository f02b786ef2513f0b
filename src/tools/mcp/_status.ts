/**
 * Private: the state of one MCP server as `bub mcp` and `McpManager.status()` report it.
 *
 * @module
 */
import type { McpServerConfig } from "./config.ts";

/**
 * Where a server is in its life.
 *
 * @example
 * ```ts
 * import type { McpServerState } from "@bub/core/tools";
 * const usable = (state: McpServerState): boolean => state === "ready";
 * ```
 */
export type McpServerState = "starting" | "ready" | "failed" | "closed";

/**
 * A server's state as `bub mcp` shows it.
 *
 * @example
 * ```ts
 * import { McpManager, type McpServerStatus } from "@bub/core/tools";
 * const manager = new McpManager({ servers: () => [] });
 * const statuses: McpServerStatus[] = manager.status();
 * for (const status of statuses) console.log(status.name, status.state, status.tools.length);
 * ```
 */
export interface McpServerStatus {
  /** The configured name. */
  name: string;
  /** `stdio` or `http`. */
  transport: McpServerConfig["transport"];
  /** Its state. */
  state: McpServerState;
  /** Why it failed (with its stderr tail), or null. */
  error: string | null;
  /** The runtime names of its tools. */
  tools: string[];
  /** The server process id (stdio), or null. */
  pid: number | null;
  /** Where a stdio server runs: `host`, or its sandbox (e.g. `sandboxed, network off`). */
  sandbox?: string;
}
