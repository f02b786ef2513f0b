/**
 * The MCP servers of a running scope: {@link McpManager.lifespan} starts every configured server
 * in parallel, offers their tools as one live tool source, and ends every server when the scope
 * exits. The MCP SDK is imported only when at least one server is configured.
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";
import type { Tool } from "../tool.ts";
import type { McpConnection } from "./_connection.ts";
import type { McpServerDriver } from "./server_driver.ts";

export type { McpServerDriver } from "./server_driver.ts";
import type { McpServerStatus } from "./_status.ts";
import type { McpServerConfig, McpStdioServerConfig } from "./config.ts";

export type { McpServerState, McpServerStatus } from "./_status.ts";

/** The default `mcp_max_result_bytes`: 16 MiB. */
export const DEFAULT_MCP_MAX_RESULT_BYTES: number = 16 * 1024 * 1024;

const logger = getLogger(["bub", "mcp"]);

/**
 * Options of {@link McpManager}.
 *
 * @example
 * ```ts
 * import { McpManager, type McpManagerOptions } from "@bub/core/tools";
 * const options: McpManagerOptions = { servers: () => [], callTimeoutSeconds: () => 30 };
 * const manager = new McpManager(options);
 * ```
 */
export interface McpManagerOptions {
  /** The configured servers, read when a lifespan starts (see `parseMcpServers`). */
  servers: () => readonly McpServerConfig[];
  /** The variables `${VAR}` in `env` / `headers` values read. Default: none. */
  env?: () => Readonly<Record<string, string | undefined>>;
  /** Per-call timeout in seconds; null: none. Default 60. */
  callTimeoutSeconds?: () => number | null;
  /** Limit of one server's start in seconds; null: none. Default 30. */
  startupTimeoutSeconds?: () => number | null;
  /**
   * The largest tool result in bytes (`mcp_max_result_bytes`); a larger one is cut, with a note
   * naming the file holding all of it. Default 16 MiB.
   */
  maxResultBytes?: () => number;
  /**
   * Where each stdio server runs, asked when it starts: a driver (the builtin plugin's sandbox,
   * see `src/builtin/mcp_sandbox.ts`), or null for the host. Rejecting fails that server's start.
   * Default: every server on the host.
   */
  driverFor?: (server: McpStdioServerConfig) => Promise<McpServerDriver | null>;
}

/** The servers of one entered lifespan. */
interface Group {
  connections: McpConnection[];
}

/**
 * Starts, lists and stops MCP servers.
 *
 * @example Offering the tools of configured servers
 * ```ts ignore
 * const mcp = new McpManager({ servers: () => parseMcpServers(config), env: () => process.env });
 * registry.addSource(() => mcp.tools());
 * await using _ = await scope.enter(mcp.lifespan(), "mcp");
 * ```
 */
export class McpManager {
  #options: McpManagerOptions;
  #groups: Group[] = [];
  #tools: readonly Tool[] = [];

  /**
   * Creates the manager; nothing starts before {@link lifespan} is entered.
   *
   * @param options where the servers and settings come from
   */
  constructor(options: McpManagerOptions) {
    this.#options = options;
  }

  /**
   * The tools of every ready server of the newest open lifespan, `<server>.<tool>`. The same
   * array until a server's tools change (so a tool registry can reuse its merge).
   */
  tools(): readonly Tool[] {
    return this.#tools;
  }

  /** The servers of the newest open lifespan (none outside one). */
  status(): McpServerStatus[] {
    return this.#groups.at(-1)?.connections.map((connection) => connection.status()) ?? [];
  }

  #changed(): void {
    this.#tools = this.#groups.at(-1)?.connections.flatMap((connection) => [...connection.tools]) ??
      [];
  }

  /**
   * Starts every configured server in parallel and yields once every one is ready or has
   * failed (a failure is logged with the server's stderr tail; its tools are absent); on exit,
   * closes them all. With no server configured it yields at once and imports nothing.
   *
   * @throws {BubError} (`config`) from `servers()` for a malformed `mcp_servers:` section
   */
  async *lifespan(): AsyncGenerator<McpManager, void, unknown> {
    const configs = this.#options.servers();
    if (configs.length === 0) {
      yield this;
      return;
    }
    // The connection code (and the stdio transport) is loaded only when a server is configured.
    const { McpConnection } = await import("./_connection.ts");
    const seconds = (value: number | null | undefined, fallback: number) =>
      value === undefined ? fallback * 1000 : value === null ? null : value * 1000;
    const options = {
      callTimeoutMs: seconds(this.#options.callTimeoutSeconds?.(), 60),
      startupTimeoutMs: seconds(this.#options.startupTimeoutSeconds?.(), 30),
      onToolsChanged: () => this.#changed(),
      env: this.#options.env?.() ?? {},
      maxResultBytes: this.#options.maxResultBytes?.() ?? DEFAULT_MCP_MAX_RESULT_BYTES,
      ...(this.#options.driverFor ? { driverFor: this.#options.driverFor } : {}),
    };
    const group: Group = {
      connections: configs.map((config) =>
        new McpConnection(config, {
          ...options,
          callTimeoutMs: config.timeoutSeconds === undefined
            ? options.callTimeoutMs
            : seconds(config.timeoutSeconds, 0),
          startupTimeoutMs: config.startupTimeoutSeconds === undefined
            ? options.startupTimeoutMs
            : seconds(config.startupTimeoutSeconds, 0),
        })
      ),
    };
    this.#groups.push(group);
    try {
      await Promise.all(group.connections.map(async (connection) => {
        try {
          await connection.start();
        } catch (error) {
          logger.error("{error}", { error });
        }
      }));
      this.#changed();
      yield this;
    } finally {
      await Promise.all(group.connections.map((connection) => connection.close()));
      this.#groups.splice(this.#groups.indexOf(group), 1);
      this.#changed();
    }
  }
}
