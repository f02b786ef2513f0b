/**
 * One configured MCP server, as `mcp_servers:` in config.yml names it (checked by `config.ts`): a
 * stdio server started as a child process (and where it runs) or a Streamable HTTP server, with
 * the limits both kinds take.
 *
 * @module
 */

/**
 * The config.yml key of the section.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MCP_SERVERS_KEY } from "@bub/core/tools";
 * assert.equal(MCP_SERVERS_KEY, "mcp_servers"); // the config.yml section
 * ```
 */
export const MCP_SERVERS_KEY = "mcp_servers";

/**
 * Keys both kinds of server take.
 *
 * @example
 * ```ts
 * import type { McpServerLimits } from "@bub/core/tools";
 * const limits: McpServerLimits = { timeoutSeconds: 30, startupTimeoutSeconds: 10 };
 * ```
 */
export interface McpServerLimits {
  /** `timeout_seconds`: limit of one tool call; null: none; undefined: the global setting. */
  readonly timeoutSeconds?: number | null;
  /** `startup_timeout_seconds`: limit of starting; null: none; undefined: the global setting. */
  readonly startupTimeoutSeconds?: number | null;
}

/**
 * A server started as a child process, spoken to over its stdin/stdout.
 *
 * @example
 * ```ts
 * import type { McpStdioServerConfig } from "@bub/core/tools";
 * const files: McpStdioServerConfig = {
 *   transport: "stdio",
 *   name: "files",
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-filesystem", "."],
 *   env: {},
 *   cwd: null,
 * };
 * ```
 */
export interface McpStdioServerConfig extends McpServerLimits {
  /** `"stdio"`. */
  readonly transport: "stdio";
  /** The server's name: the prefix of its tools (`<name>.<tool>`). */
  readonly name: string;
  /** The executable (looked up on `PATH`) or its path. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Variables added to its environment (values may hold `${VAR}`). */
  readonly env: Readonly<Record<string, string>>;
  /** Its working directory; null: the host's (the workspace when sandboxed). */
  readonly cwd: string | null;
  /**
   * `sandbox`: true runs it in the sandbox, false on the host; absent follows the `sandbox`
   * setting (see `McpManagerOptions.driverFor`).
   */
  readonly sandbox?: boolean;
  /**
   * `network` of a sandboxed server: `off`, `on`, or the hosts it may reach; absent: the
   * `sandbox_network` setting.
   */
  readonly network?: "off" | "on" | readonly string[];
  /** `paths`: host paths a sandboxed server also sees, read-only (`<path>:rw` read-write). */
  readonly paths?: readonly string[];
}

/**
 * A server reached over MCP Streamable HTTP.
 *
 * @example
 * ```ts
 * import type { McpHttpServerConfig } from "@bub/core/tools";
 * const docs: McpHttpServerConfig = {
 *   transport: "http",
 *   name: "docs",
 *   url: "http://127.0.0.1:8080/mcp",
 *   headers: { authorization: "Bearer ${DOCS_TOKEN}" },
 * };
 * ```
 */
export interface McpHttpServerConfig extends McpServerLimits {
  /** `"http"`. */
  readonly transport: "http";
  /** The server's name: the prefix of its tools (`<name>.<tool>`). */
  readonly name: string;
  /** The endpoint URL. */
  readonly url: string;
  /** Headers sent with every request (values may hold `${VAR}`). */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * One configured MCP server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type McpServerConfig, parseMcpServers } from "@bub/core/tools";
 * const servers: McpServerConfig[] = parseMcpServers({ mcp_servers: { docs: { url: "http://127.0.0.1:8080/mcp" } } });
 * assert.equal(servers[0]?.transport, "http");
 * ```
 */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;
