/**
 * The `mcp_servers:` section of config.yml: one entry per MCP server, a stdio server
 * (`{ command, args, env, cwd }`, and where it runs: `sandbox`, `network`, `paths`) or a Streamable
 * HTTP server (`{ url, headers }`), checked into
 * typed {@link McpServerConfig}s. `${VAR}` (and `${VAR:-fallback}`) in `env` and `headers` values
 * are expanded from the environment when a server starts ({@link expandServerConfig}).
 *
 * @module
 */
import { isRecord } from "../../_internal/object.ts";
import { BubError } from "../../kernel/errors.ts";
import { placement } from "./_stdio_placement.ts";

/**
 * The config.yml key of the section.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MCP_SERVERS_KEY } from "@bub/core/tools";
 * assert.equal(MCP_SERVERS_KEY, "mcp_servers"); // the config.yml section
 * ```
 */
export const MCP_SERVERS_KEY = "mcp_servers";

/**
 * Keys both kinds of server take.
 *
 * @example
 * ```ts
 * import type { McpServerLimits } from "@bub/core/tools";
 * const limits: McpServerLimits = { timeoutSeconds: 30, startupTimeoutSeconds: 10 };
 * ```
 */
export interface McpServerLimits {
  /** `timeout_seconds`: limit of one tool call; null: none; undefined: the global setting. */
  readonly timeoutSeconds?: number | null;
  /** `startup_timeout_seconds`: limit of starting; null: none; undefined: the global setting. */
  readonly startupTimeoutSeconds?: number | null;
}

/**
 * A server started as a child process, spoken to over its stdin/stdout.
 *
 * @example
 * ```ts
 * import type { McpStdioServerConfig } from "@bub/core/tools";
 * const files: McpStdioServerConfig = {
 *   transport: "stdio",
 *   name: "files",
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-filesystem", "."],
 *   env: {},
 *   cwd: null,
 * };
 * ```
 */
export interface McpStdioServerConfig extends McpServerLimits {
  /** `"stdio"`. */
  readonly transport: "stdio";
  /** The server's name: the prefix of its tools (`<name>.<tool>`). */
  readonly name: string;
  /** The executable (looked up on `PATH`) or its path. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Variables added to its environment (values may hold `${VAR}`). */
  readonly env: Readonly<Record<string, string>>;
  /** Its working directory; null: the host's (the workspace when sandboxed). */
  readonly cwd: string | null;
  /**
   * `sandbox`: true runs it in the sandbox, false on the host; absent follows the `sandbox`
   * setting (see `McpManagerOptions.driverFor`).
   */
  readonly sandbox?: boolean;
  /**
   * `network` of a sandboxed server: `off`, `on`, or the hosts it may reach; absent: the
   * `sandbox_network` setting.
   */
  readonly network?: "off" | "on" | readonly string[];
  /** `paths`: host paths a sandboxed server also sees, read-only (`<path>:rw` read-write). */
  readonly paths?: readonly string[];
}

/**
 * A server reached over MCP Streamable HTTP.
 *
 * @example
 * ```ts
 * import type { McpHttpServerConfig } from "@bub/core/tools";
 * const docs: McpHttpServerConfig = {
 *   transport: "http",
 *   name: "docs",
 *   url: "http://127.0.0.1:8080/mcp",
 *   headers: { authorization: "Bearer ${DOCS_TOKEN}" },
 * };
 * ```
 */
export interface McpHttpServerConfig extends McpServerLimits {
  /** `"http"`. */
  readonly transport: "http";
  /** The server's name: the prefix of its tools (`<name>.<tool>`). */
  readonly name: string;
  /** The endpoint URL. */
  readonly url: string;
  /** Headers sent with every request (values may hold `${VAR}`). */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * One configured MCP server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type McpServerConfig, parseMcpServers } from "@bub/core/tools";
 * const servers: McpServerConfig[] = parseMcpServers({ mcp_servers: { docs: { url: "http://127.0.0.1:8080/mcp" } } });
 * assert.equal(servers[0]?.transport, "http");
 * ```
 */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

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
 * import { expandServerConfig, parseMcpServers } from "./config.ts";
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
