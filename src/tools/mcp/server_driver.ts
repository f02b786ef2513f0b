/**
 * Where one stdio MCP server runs: {@link McpServerDriver}, the process driver that starts it (a
 * sandboxing one, or the host's) and what it holds.
 *
 * @module
 */
import type { ProcessDriver } from "../../environment/process_driver.ts";

/**
 * Where one stdio server runs: the driver that starts it (a sandboxing one), released when the
 * server stops.
 *
 * @example
 * ```ts
 * import type { McpServerDriver } from "@bub/core/tools";
 * import type { ProcessDriver } from "@bub/core/environment";
 * const onHost = (driver: ProcessDriver): McpServerDriver => ({
 *   driver,
 *   description: "host",
 *   close: () => Promise.resolve(),
 * });
 * ```
 */
export interface McpServerDriver {
  /** Starts and signals the server's process. */
  readonly driver: ProcessDriver;
  /** Where it runs, for `bub mcp` (`host`, `sandboxed, network off`...). */
  readonly description: string;
  /** Releases what the driver holds (its egress proxy, its cgroup). */
  close(): Promise<void>;
}
