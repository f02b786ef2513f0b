/**
 * `bub mcp`: starts the MCP servers of `mcp_servers:` (as a running scope would), prints each
 * server's transport, state and tools (or why it failed), and stops them. Everything printed
 * (a failed server's stderr tail too) has the known secrets redacted: the credentials in the
 * servers' `env` and `headers`, `api_key`... (`_internal/secrets.ts`).
 *
 * @module
 */
import { redactKnownSecrets, registerSecretsOf } from "../_internal/secrets.ts";
import type { McpServerStatus } from "../tools/mcp/mcp_manager.ts";
import { parseMcpServers } from "../tools/mcp/config.ts";
import type { Tool } from "../tools/tool.ts";
import { toolParameterList } from "../tools/prompt.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import { CliExit, type CliOutput } from "./cli_io.ts";
import type { BuiltinRuntime } from "./runtime.ts";

/** Options of {@link mcpCommand}. */
export interface McpCommandOptions {
  /** Print JSON (`[{ name, transport, state, error, pid, tools: [{ name, description }] }]`). */
  json?: boolean;
}

function signature(tool: Tool): string {
  const head = `${tool.name}(${toolParameterList(tool)})`;
  return tool.description ? `${head}: ${tool.description.split("\n")[0]}` : head;
}

function describe(status: McpServerStatus, tools: ReadonlyMap<string, Tool>): string {
  const pid = status.pid === null ? "" : ` pid ${status.pid}`;
  const lines = [`${status.name} (${status.transport}): ${status.state}${pid}`];
  if (status.error) lines.push(...status.error.split("\n").map((line) => `  ${line}`));
  for (const name of status.tools) {
    const tool = tools.get(name);
    lines.push(`  - ${tool ? signature(tool) : name}`);
  }
  if (status.state === "ready" && status.tools.length === 0) lines.push("  (no tools)");
  return lines.join("\n");
}

/**
 * Prints the configured MCP servers after starting them: `<name> (<stdio|http>): <state>` and
 * one `  - <tool>(<params>): <description>` line per tool, or the failure (with the server's
 * stderr tail). Exits 1 when a server failed.
 *
 * @throws {CliExit} (1) for a malformed `mcp_servers:` section or a failed server
 */
export async function mcpCommand(
  framework: KernelFramework,
  runtime: BuiltinRuntime,
  output: CliOutput,
  options: McpCommandOptions = {},
): Promise<void> {
  const print = (text: string) => output.out(redactKnownSecrets(text));
  try {
    parseMcpServers(framework.config);
  } catch (error) {
    throw new CliExit(1, error instanceof Error ? error.message : String(error));
  }
  // The builtin runtime registered the config's secrets when it was created; this also covers
  // a runtime made before the config was replaced.
  registerSecretsOf({ config: framework.config, env: runtime.sources.env });
  const lifespan = runtime.mcp.lifespan();
  await lifespan.next();
  let statuses: McpServerStatus[];
  try {
    statuses = runtime.mcp.status();
    const tools = new Map(runtime.mcp.tools().map((tool) => [tool.name, tool]));
    if (options.json) {
      const data = statuses.map((status) => ({
        ...status,
        tools: status.tools.map((name) => ({
          name,
          description: tools.get(name)?.description ?? "",
          parameters: tools.get(name)?.parameters ?? {},
        })),
      }));
      print(JSON.stringify(data, null, 2) + "\n");
    } else if (statuses.length === 0) {
      print(`No MCP servers configured (add mcp_servers: to ${framework.configFile}).\n`);
    } else {
      print(statuses.map((status) => describe(status, tools)).join("\n") + "\n");
    }
  } finally {
    await lifespan.return(undefined);
  }
  const failed = statuses.filter((status) => status.state === "failed").map((s) => s.name);
  if (failed.length > 0) {
    throw new CliExit(1, `MCP server(s) failed to start: ${failed.join(", ")}`);
  }
}
