/**
 * Private: an MCP server's tools as Bub tools. Listing them (every page) makes one tool
 * `<server>.<tool>` each, its name made model-safe, its input schema as parameters and the
 * server's idempotent hint kept; calling one goes to the server with a timeout and the turn's
 * signal, and a failure or a timeout becomes a `tool` error.
 *
 * @module
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index";
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import { defineTool, type Tool } from "../tool.ts";
import { type McpToolOutput, toolResultValue } from "./_result.ts";

/** The longest timer a runtime accepts (a longer one fires at once). */
const MAX_TIMEOUT_MS = 2_147_483_647;
/** The JSON-RPC error code of a timed-out request. */
const REQUEST_TIMEOUT = -32001;

/** The SDK's request timeout of a limit in ms (null: none). */
export function timeoutOf(ms: number | null): number {
  return ms === null ? MAX_TIMEOUT_MS : Math.min(Math.max(1, Math.round(ms)), MAX_TIMEOUT_MS);
}

/** The model-safe part of an MCP tool name: anything but letters, digits, `_`, `-` becomes `_`. */
function safeToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** One tool as the server lists it. */
interface ListedTool {
  name: string;
  description?: string;
  title?: string;
  inputSchema: unknown;
  annotations?: unknown;
}

/** Calls MCP tool `mcpName` (Bub name `name`) with `args`; see {@link callServerTool}. */
export type ServerToolCall = (
  name: string,
  mcpName: string,
  args: unknown,
  signal?: AbortSignal,
) => Promise<unknown>;

/** Every tool of server `server` as a Bub tool whose handler is `call`. */
export async function listServerTools(
  client: Client,
  server: string,
  timeout: number,
  call: ServerToolCall,
): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
    for (const tool of page.tools) tools.push(bubTool(server, tool, call));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function bubTool(server: string, tool: ListedTool, call: ServerToolCall): Tool {
  const mcpName = tool.name;
  const name = `${server}.${safeToolName(mcpName)}`;
  const schema = isRecord(tool.inputSchema) ? tool.inputSchema : { type: "object" };
  return defineTool({
    name,
    description: tool.description ?? tool.title ?? "",
    parameters: { ...schema, type: "object" },
    context: true,
    // The server's hint that repeated calls have no further effect (MCP tool annotations).
    idempotent: isRecord(tool.annotations) && tool.annotations.idempotentHint === true,
    handler: (args, context) => call(name, mcpName, args, context.signal),
  });
}

/**
 * Calls MCP tool `mcpName` (Bub name `name`) with `args` and returns its result's value (see
 * `_result.ts`).
 *
 * @throws {BubError} (`tool`) when the call times out or fails, or the result is an error; the
 *   signal's reason when it aborts
 */
export async function callServerTool(
  client: Client,
  call: { name: string; mcpName: string; args: unknown; timeout: number; signal?: AbortSignal },
): Promise<string | McpToolOutput> {
  const { name, timeout, signal } = call;
  let result: unknown;
  try {
    result = await client.callTool(
      { name: call.mcpName, arguments: isRecord(call.args) ? call.args : {} },
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
    const message = error instanceof Error ? error.message : String(error);
    throw new BubError("tool", `Tool '${name}' failed: ${message}`, null, { cause: error });
  }
  return toolResultValue(name, result);
}
