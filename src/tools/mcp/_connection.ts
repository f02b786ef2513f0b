/**
 * Private: one connection to one MCP server and its life: starting it (its transport:
 * `_server_transport.ts`), its tools as Bub tools `<server>.<tool>` (`_server_tools.ts`),
 * refreshing them on `tools/list_changed`, losing them when the server goes away, calls while it
 * is ready (an oversized result cut), and closing it.
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import { getLogger } from "../../_internal/log.ts";
import { BubError } from "../../kernel/errors.ts";
import { VERSION } from "../../version.ts";
import type { Tool } from "../tool.ts";
import { cutResult } from "./_result.ts";
import { mcpSpillPath } from "./_oversized.ts";
import { callServerTool, listServerTools, timeoutOf } from "./_server_tools.ts";
import { clientModule, openTransport } from "./_server_transport.ts";
import { ProcessStdioTransport } from "./_stdio_transport.ts";
import { expandServerConfig, type McpServerConfig, type McpStdioServerConfig } from "./config.ts";
import type { McpServerDriver } from "./server_driver.ts";
import type { McpServerState, McpServerStatus } from "./_status.ts";

const logger = getLogger(["bub", "mcp"]);

/** Options of {@link McpConnection}. */
export interface McpConnectionOptions {
  /** Per-call timeout in ms; null: none. */
  callTimeoutMs: number | null;
  /** Limit of starting (connect + first tool list) in ms; null: none. */
  startupTimeoutMs: number | null;
  /** Called when the tools changed (a refresh, or the server went away). */
  onToolsChanged: () => void;
  /** The variables `${VAR}` in `env` / `headers` values read. */
  env: Readonly<Record<string, string | undefined>>;
  /** The largest tool result in bytes; a larger one is cut (see `_result.ts`). */
  maxResultBytes: number;
  /** Where a stdio server runs (see `McpManagerOptions.driverFor`); absent: on the host. */
  driverFor?: (server: McpStdioServerConfig) => Promise<McpServerDriver | null>;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A connection to one configured server. */
export class McpConnection {
  /** The server as configured (before `${VAR}` expansion). */
  readonly config: McpServerConfig;
  #options: McpConnectionOptions;
  #client: Client | null = null;
  #transport: Transport | null = null;
  #state: McpServerState = "starting";
  #error: string | null = null;
  #tools: readonly Tool[] = [];
  #driver: McpServerDriver | null = null;

  /**
   * Creates the connection; nothing starts before {@link start}.
   *
   * @param config the server (`${VAR}` are expanded on start)
   * @param options timeouts, variables and the change callback
   */
  constructor(config: McpServerConfig, options: McpConnectionOptions) {
    this.config = config;
    this.#options = options;
  }

  /** Its tools (none unless ready). */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** Its status. */
  status(): McpServerStatus {
    const live = this.#state === "ready" || this.#state === "starting";
    const pid = live && this.#transport instanceof ProcessStdioTransport
      ? this.#transport.pid
      : null;
    return {
      name: this.config.name,
      transport: this.config.transport,
      state: this.#state,
      error: this.#error,
      tools: this.#tools.map((tool) => tool.name),
      pid,
      ...(this.config.transport === "stdio"
        ? { sandbox: this.#driver?.description ?? "host" }
        : {}),
    };
  }

  /**
   * Starts the server, initializes the session and lists its tools.
   *
   * @throws {BubError} (`tool`) `MCP server '<name>' failed to start: <why>` plus its stderr tail
   */
  async start(): Promise<void> {
    const timeout = timeoutOf(this.#options.startupTimeoutMs);
    try {
      const config = expandServerConfig(this.config, this.#options.env);
      const { Client } = await clientModule();
      const transport = await this.#createTransport(config);
      this.#transport = transport;
      const client = new Client({ name: "bub", version: VERSION }, {
        capabilities: {},
        listChanged: {
          tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void this.#refresh() },
        },
      });
      this.#client = client;
      await client.connect(transport, { timeout });
      transport.onclose = chain(transport.onclose, () => this.#lost());
      this.#tools = await this.#listTools(timeout);
      this.#state = "ready";
    } catch (error) {
      this.#state = "failed";
      this.#error = messageOf(error);
      const transport = this.#transport;
      if (transport instanceof ProcessStdioTransport) {
        await transport.settle(500);
        if (transport.exitCode !== null) {
          this.#error = `the server exited with code ${transport.exitCode} (${this.#error})`;
        }
        const tail = transport.stderrTail();
        if (tail) this.#error += `\nstderr:\n${tail}`;
      }
      await this.close("failed");
      throw new BubError(
        "tool",
        `MCP server '${this.config.name}' failed to start: ${this.#error}`,
        {
          server: this.config.name,
        },
        { cause: error },
      );
    }
  }

  async #createTransport(config: McpServerConfig): Promise<Transport> {
    if (config.transport === "stdio") {
      this.#driver = (await this.#options.driverFor?.(config)) ?? null;
    }
    return await openTransport(config, this.#driver, {
      server: this.config.name,
      maxMessageBytes: this.#options.maxResultBytes,
    });
  }

  #listTools(timeout: number): Promise<Tool[]> {
    return listServerTools(
      this.#client!,
      this.config.name,
      timeout,
      (name, mcpName, args, signal) => this.call(name, mcpName, args, signal),
    );
  }

  async #refresh(): Promise<void> {
    if (this.#state !== "ready") return;
    try {
      this.#tools = await this.#listTools(timeoutOf(this.#options.startupTimeoutMs));
      logger.info("MCP server {server} now has {count} tools", {
        server: this.config.name,
        count: this.#tools.length,
      });
    } catch (error) {
      logger.warn("Cannot refresh the tools of MCP server {server}: {error}", {
        server: this.config.name,
        error: messageOf(error),
      });
      return;
    }
    this.#options.onToolsChanged();
  }

  /** The transport closed by itself: the server is gone, and so are its tools. */
  #lost(): void {
    if (this.#state !== "ready") return;
    this.#state = "failed";
    const tail = this.#transport instanceof ProcessStdioTransport
      ? this.#transport.stderrTail()
      : "";
    this.#error = "the server closed the connection" + (tail ? `\nstderr:\n${tail}` : "");
    this.#tools = [];
    logger.error("MCP server {server} went away: {error}", {
      server: this.config.name,
      error: this.#error,
    });
    this.#options.onToolsChanged();
  }

  /**
   * Calls MCP tool `mcpName` (Bub name `name`) with `args`.
   *
   * @throws {BubError} (`tool`) when the server is not connected, the call times out or fails,
   *   or the result is an error; the signal's reason when it aborts
   */
  async call(
    name: string,
    mcpName: string,
    args: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const client = this.#client;
    if (!client || this.#state !== "ready") {
      throw new BubError(
        "tool",
        `Tool '${name}' is unavailable: MCP server '${this.config.name}' is ${this.#state}`,
      );
    }
    signal?.throwIfAborted();
    const timeout = timeoutOf(this.#options.callTimeoutMs);
    const value = await callServerTool(client, { name, mcpName, args, timeout, signal });
    // A stdio server's oversized message was cut while it arrived (`_oversized.ts`).
    if (this.#transport instanceof ProcessStdioTransport) return value;
    return cutResult(value, this.#options.maxResultBytes, () => mcpSpillPath(this.config.name));
  }

  /** Closes the session and ends the server (its whole process group for stdio). */
  async close(state: McpServerState = "closed"): Promise<void> {
    const client = this.#client;
    const transport = this.#transport;
    this.#client = null;
    this.#tools = [];
    if (this.#state !== "failed") this.#state = state;
    try {
      if (client) await client.close();
      else await transport?.close();
    } catch (error) {
      logger.warn("Cannot close MCP server {server}: {error}", {
        server: this.config.name,
        error: messageOf(error),
      });
    }
    // The SDK's close() may return before the stdio transport has ended the process group.
    if (transport instanceof ProcessStdioTransport) await transport.close();
    const driver = this.#driver;
    this.#driver = null;
    await driver?.close();
  }
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}
