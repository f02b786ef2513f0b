/**
 * Private: one connection to one MCP server: starting it (the SDK client is imported on first
 * use), its tools as Bub tools `<server>.<tool>`, refreshing them on `tools/list_changed`, calls
 * with a timeout and the turn's signal, and closing it.
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import { getLogger } from "../../_internal/log.ts";
import { lazyImport } from "../../_internal/lazy.ts";
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import { VERSION } from "../../version.ts";
import { defineTool, type Tool } from "../tool.ts";
import { cutResult, toolResultValue } from "./_result.ts";
import { mcpSpillPath } from "./_oversized.ts";
import { ProcessStdioTransport } from "./_stdio_transport.ts";
import { expandServerConfig, type McpServerConfig, type McpStdioServerConfig } from "./config.ts";
import type { McpServerDriver } from "./server_driver.ts";
import type { McpServerState, McpServerStatus } from "./_status.ts";

const logger = getLogger(["bub", "mcp"]);
// Type-only imports name the SDK's modules without `.js` (its export map gives types only so);
// the runtime imports need the `.js`.
type ClientModule = typeof import("@modelcontextprotocol/sdk/client/index");
type HttpModule = typeof import("@modelcontextprotocol/sdk/client/streamableHttp");
const clientModule = lazyImport(() =>
  import("@modelcontextprotocol/sdk/client/index.js") as Promise<ClientModule>
);
const httpModule = lazyImport(() =>
  import("@modelcontextprotocol/sdk/client/streamableHttp.js") as Promise<HttpModule>
);

/** The longest timer a runtime accepts (a longer one fires at once). */
const MAX_TIMEOUT_MS = 2_147_483_647;
/** The JSON-RPC error code of a timed-out request. */
const REQUEST_TIMEOUT = -32001;

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

/** The model-safe part of an MCP tool name: anything but letters, digits, `_`, `-` becomes `_`. */
function safeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

function timeoutOf(ms: number | null): number {
  return ms === null ? MAX_TIMEOUT_MS : Math.min(Math.max(1, Math.round(ms)), MAX_TIMEOUT_MS);
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
      return new ProcessStdioTransport({
        ...(this.#driver ? { driver: this.#driver.driver } : {}),
        command: config.command,
        args: config.args,
        env: { ...config.env },
        cwd: config.cwd,
        maxMessageBytes: this.#options.maxResultBytes,
        server: this.config.name,
      });
    }
    const { StreamableHTTPClientTransport } = await httpModule();
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: { ...config.headers } },
    });
  }

  async #listTools(timeout: number): Promise<Tool[]> {
    const client = this.#client!;
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
      for (const tool of page.tools) tools.push(this.#bubTool(tool));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  #bubTool(
    tool: {
      name: string;
      description?: string;
      title?: string;
      inputSchema: unknown;
      annotations?: unknown;
    },
  ): Tool {
    const mcpName = tool.name;
    const name = `${this.config.name}.${safeToolName(mcpName)}`;
    const schema = isRecord(tool.inputSchema) ? tool.inputSchema : { type: "object" };
    return defineTool({
      name,
      description: tool.description ?? tool.title ?? "",
      parameters: { ...schema, type: "object" },
      context: true,
      // The server's hint that repeated calls have no further effect (MCP tool annotations).
      idempotent: isRecord(tool.annotations) && tool.annotations.idempotentHint === true,
      handler: (args, context) => this.call(name, mcpName, args, context.signal),
    });
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
    let result: unknown;
    try {
      result = await client.callTool(
        { name: mcpName, arguments: isRecord(args) ? args : {} },
        undefined,
        { timeout, ...(signal ? { signal } : {}) },
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if ((error as { code?: unknown } | null)?.code === REQUEST_TIMEOUT) {
        throw new BubError("tool", `Tool '${name}' timed out after ${timeout / 1000} s`, null, {
          cause: error,
        });
      }
      throw new BubError("tool", `Tool '${name}' failed: ${messageOf(error)}`, null, {
        cause: error,
      });
    }
    const value = toolResultValue(name, result);
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
