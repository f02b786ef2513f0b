/**
 * The `mcp_servers:` section of config.yml: one entry per MCP server, a stdio server
 * (`{ command, args, env, cwd }`, and where it runs: `sandbox`, `network`, `paths`) or a Streamable
 * HTTP server (`{ url, headers }`), checked into typed {@link McpServerConfig}s
 * (`server_config.ts`). `${VAR}` (and `${VAR:-fallback}`) in `env` and `headers` values are
 * expanded from the environment when a server starts ({@link expandServerConfig},
 * `_server_variables.ts`).
 *
 * @module
 */
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import { placement } from "./_stdio_placement.ts";
import { MCP_SERVERS_KEY, type McpServerConfig, type McpServerLimits } from "./server_config.ts";
import { expandServerConfig } from "./_server_variables.ts";

export {
  MCP_SERVERS_KEY,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpServerLimits,
  type McpStdioServerConfig,
} from "./server_config.ts";
export { expandServerConfig };

const LIMIT_KEYS = ["timeout_seconds", "startup_timeout_seconds"];
const STDIO_KEYS = new Set([
  "command",
  "args",
  "env",
  "cwd",
  "sandbox",
  "network",
  "paths",
  ...LIMIT_KEYS,
]);
const HTTP_KEYS = new Set(["url", "headers", ...LIMIT_KEYS]);
const NAME = /^[A-Za-z0-9_-]+$/;

/** Throws the config error of `mcp_servers.<key>`. */
export function fail(key: string, problem: string, value: unknown): never {
  throw new BubError(
    "config",
    `Invalid config: ${MCP_SERVERS_KEY}.${key} ${problem}, got ${
      JSON.stringify(value) ?? "undefined"
    }`,
  );
}

function stringMap(key: string, value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) fail(key, "must be a mapping of names to strings", value);
  const out: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === "number" || typeof item === "boolean") out[name] = String(item);
    else if (typeof item === "string") out[name] = item;
    else fail(`${key}.${name}`, "must be a string", item);
  }
  return out;
}

function limits(name: string, value: Record<string, unknown>): McpServerLimits {
  const out: { timeoutSeconds?: number | null; startupTimeoutSeconds?: number | null } = {};
  for (const key of LIMIT_KEYS) {
    const item = value[key];
    if (item === undefined) continue;
    if (item !== null && (typeof item !== "number" || !(item > 0))) {
      fail(`${name}.${key}`, "must be a number greater than 0, or null", item);
    }
    if (key === "timeout_seconds") out.timeoutSeconds = item as number | null;
    else out.startupTimeoutSeconds = item as number | null;
  }
  return out;
}

function parseServer(name: string, value: unknown): McpServerConfig {
  if (!NAME.test(name)) {
    fail(name, "has a bad server name (letters, digits, '_' and '-' only)", name);
  }
  if (!isRecord(value)) fail(name, "must be a mapping with `command` or `url`", value);
  const hasCommand = value.command !== undefined;
  const hasUrl = value.url !== undefined;
  if (hasCommand === hasUrl) {
    fail(name, "needs exactly one of `command` (stdio) and `url` (Streamable HTTP)", value);
  }
  const allowed = hasCommand ? STDIO_KEYS : HTTP_KEYS;
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) {
      fail(
        `${name}.${key}`,
        `is not a ${hasCommand ? "stdio" : "Streamable HTTP"} server key`,
        value[key],
      );
    }
  }
  if (hasUrl) {
    const url = value.url;
    if (typeof url !== "string" || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      fail(`${name}.url`, "must be an http:// or https:// URL", url);
    }
    return {
      transport: "http",
      name,
      url,
      headers: stringMap(`${name}.headers`, value.headers),
      ...limits(name, value),
    };
  }
  const command = value.command;
  if (typeof command !== "string" || command.trim() === "") {
    fail(`${name}.command`, "must be a non-empty string", command);
  }
  const args = value.args ?? [];
  if (
    !Array.isArray(args) || args.some((arg) => typeof arg !== "string" && typeof arg !== "number")
  ) {
    fail(`${name}.args`, "must be a list of strings", args);
  }
  const cwd = value.cwd ?? null;
  if (cwd !== null && (typeof cwd !== "string" || cwd === "")) {
    fail(`${name}.cwd`, "must be a non-empty string", cwd);
  }
  return {
    transport: "stdio",
    name,
    command,
    args: args.map(String),
    env: stringMap(`${name}.env`, value.env),
    cwd,
    ...placement(name, value, fail),
    ...limits(name, value),
  };
}

/**
 * The servers of the whole config data's `mcp_servers:` section, in config order; none when the
 * section is absent or null.
 *
 * @throws {BubError} (`config`) naming the bad key, e.g.
 *   `Invalid config: mcp_servers.demo.args must be a list of strings, got "x"`
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseMcpServers } from "./config.ts";
 * const [server] = parseMcpServers({ mcp_servers: { demo: { command: "demo-server", args: ["-v"] } } });
 * assert.ok(server?.transport === "stdio" && server.name === "demo");
 * ```
 */
export function parseMcpServers(
  config: Readonly<Record<string, unknown>> | undefined,
): McpServerConfig[] {
  const section = config?.[MCP_SERVERS_KEY];
  if (section === undefined || section === null) return [];
  if (!isRecord(section)) {
    throw new BubError(
      "config",
      `Invalid config: ${MCP_SERVERS_KEY} must be a mapping of server names to servers, got ${
        JSON.stringify(section)
      }`,
    );
  }
  return Object.entries(section).map(([name, value]) => parseServer(name, value));
}
