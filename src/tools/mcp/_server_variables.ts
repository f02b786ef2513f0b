/**
 * Private: `${VAR}` and `${VAR:-fallback}` in a server's `env` and `headers` values, replaced from
 * the environment when the server starts (an empty variable counts as unset; an unset one without
 * a fallback is a config error naming the key and the variable).
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import { MCP_SERVERS_KEY, type McpServerConfig } from "./server_config.ts";

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function expandValue(
  key: string,
  value: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return value.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    throw new BubError(
      "config",
      `Invalid config: ${MCP_SERVERS_KEY}.${key} uses \${${name}}, but ${name} is not set`,
    );
  });
}

function expandMap(
  key: string,
  map: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(map)) {
    out[name] = expandValue(`${key}.${name}`, value, env);
  }
  return out;
}

/**
 * `server` with `${VAR}` / `${VAR:-fallback}` in its `env` or `headers` values replaced from
 * `env` (an empty variable counts as unset).
 *
 * @throws {BubError} (`config`) naming the key and the variable when a variable without a
 *   fallback is unset
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { expandServerConfig, parseMcpServers } from "@bub/core/tools";
 * const [server] = parseMcpServers({ mcp_servers: { api: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${TOKEN}" } } } });
 * const expanded = expandServerConfig(server!, { TOKEN: "t1" });
 * assert.ok(expanded.transport === "http" && expanded.headers.Authorization === "Bearer t1");
 * ```
 */
export function expandServerConfig(
  server: McpServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): McpServerConfig {
  if (server.transport === "http") {
    return { ...server, headers: expandMap(`${server.name}.headers`, server.headers, env) };
  }
  return { ...server, env: expandMap(`${server.name}.env`, server.env, env) };
}
