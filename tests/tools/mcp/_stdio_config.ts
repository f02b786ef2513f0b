/**
 * The `mcp_servers:` entry of the test stdio server (`_mcp_server.ts` run by the current
 * runtime), without importing the SDK.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeCommand } from "../../cli/_spawn.ts";

const SERVER_SCRIPT = join(fileURLToPath(new URL(".", import.meta.url)), "_mcp_server.ts");

/** `{ command, args }` starting the test server over stdio. */
export function stdioServer(): { command: string; args: string[] } {
  const [command, ...args] = runtimeCommand(SERVER_SCRIPT, ["--mcp-stdio"]);
  return { command: command!, args };
}
