/**
 * Private: the way to a configured MCP server. The SDK's client and Streamable HTTP modules are
 * imported on first use; a stdio server is a child process (on the host, or through the driver
 * that places it, e.g. in the sandbox), an HTTP server is reached at its URL with its headers.
 *
 * @module
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import { lazyImport } from "../../_internal/lazy.ts";
import { ProcessStdioTransport } from "./_stdio_transport.ts";
import type { McpServerConfig } from "./config.ts";
import type { McpServerDriver } from "./server_driver.ts";

// Type-only imports name the SDK's modules without `.js` (its export map gives types only so);
// the runtime imports need the `.js`.
type ClientModule = typeof import("@modelcontextprotocol/sdk/client/index");
type HttpModule = typeof import("@modelcontextprotocol/sdk/client/streamableHttp");

/** The SDK's client module, imported on its first use. */
export const clientModule: () => Promise<ClientModule> = lazyImport(() =>
  import("@modelcontextprotocol/sdk/client/index.js") as Promise<ClientModule>
);
const httpModule = lazyImport(() =>
  import("@modelcontextprotocol/sdk/client/streamableHttp.js") as Promise<HttpModule>
);

/** What {@link openTransport} needs besides the server. */
export interface TransportOptions {
  /** The server's configured name (named in its process's errors). */
  server: string;
  /** The largest message a stdio server may send, in bytes. */
  maxMessageBytes: number;
}

/**
 * The transport to `config` (its `${VAR}` expanded); a stdio server runs on `driver` (null: on
 * the host).
 */
export async function openTransport(
  config: McpServerConfig,
  driver: McpServerDriver | null,
  options: TransportOptions,
): Promise<Transport> {
  if (config.transport === "stdio") {
    return new ProcessStdioTransport({
      ...(driver ? { driver: driver.driver } : {}),
      command: config.command,
      args: config.args,
      env: { ...config.env },
      cwd: config.cwd,
      maxMessageBytes: options.maxMessageBytes,
      server: options.server,
    });
  }
  const { StreamableHTTPClientTransport } = await httpModule();
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: { ...config.headers } },
  });
}
