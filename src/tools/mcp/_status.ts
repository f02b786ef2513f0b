/**
 * Private: the state of one MCP server as `bub mcp` and `McpManager.status()` report it.
 *
 * @module
 */
import type { McpServerConfig } from "./config.ts";

/** Where a server is in its life. */
export type McpServerState = "starting" | "ready" | "failed" | "closed";

/** A server's state as `bub mcp` shows it. */
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
}
