/**
 * {@link mcpServerPlacement}: where a stdio MCP server of `mcp_servers:` runs, on the host or in
 * the sandbox, for `McpManagerOptions.driverFor`.
 *
 * A process's MCP servers are shared by all its sessions, so a server is sandboxed when the
 * `sandbox` setting sandboxes the sessions of the process that uses it: under `all` and
 * `required` always; under `remote` in a process that serves other people (`bub gateway`,
 * `bub web`), so a gateway's servers are sandboxed while those of your own `bub chat`, `bub run`,
 * `bub acp` or `bub mcp`, and of an application embedding Bub, are not (such an application sets
 * `sandbox: all`, or a server's `sandbox: true`); never under `off`. A server's `sandbox: true` sandboxes it whatever the setting,
 * `sandbox: false` runs it on the host and says so loudly when the setting would sandbox it.
 *
 * A sandboxed server gets the profile of a session's commands (the workspace read-write, the
 * system read-only, an empty home and `/tmp`, Bub's home hidden), plus what it needs to start:
 * its executable when that lives outside the system folders, its `cwd` (read-only) and its
 * `paths` (read-only, `:rw` read-write). Its network is its `network:` key, else
 * `sandbox_network`: `off` by default, so a server that calls an API lists that API's host.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import process from "node:process";
import { getLogger } from "../_internal/log.ts";
import { BubError } from "../kernel/errors.ts";
import { processDriver } from "../environment/driver_select.ts";
import { findExecutable } from "../_internal/find_executable.ts";
import { createSandboxDriver } from "../environment/sandbox_driver.ts";
import { probeSandbox, SANDBOX_INSTALL_HINT } from "../environment/sandbox_probe.ts";
import type { SandboxNetwork, SandboxProfile } from "../environment/sandbox_profile.ts";
import type { McpServerDriver } from "../tools/mcp/server_driver.ts";
import type { McpStdioServerConfig } from "../tools/mcp/config.ts";
import { parseSandboxPaths, sandboxProfile } from "./environment_hooks.ts";
import type { SandboxSettings } from "./settings_types.ts";

const logger = getLogger(["bub", "sandbox"]);

/** Options of {@link mcpServerPlacement}. */
export interface McpPlacementOptions {
  /** The sandbox settings, read when a server starts. */
  sandbox: () => SandboxSettings;
  /** The workspace a sandboxed server sees read-write. */
  workspace: () => string;
  /** Paths it must not see (Bub's home). */
  hiddenPaths: () => readonly string[];
  /** True when this process serves people other than its user (`bub gateway`, `bub web`). */
  servesRemote: () => boolean;
}

/** Folders whose executables a sandbox shows anyway. */
const SYSTEM = ["/usr/", "/bin/", "/sbin/", "/lib", "/etc/", "/opt/"];

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/** The server's executable when the sandbox would not show it (null: it does, or not found). */
function executableToShow(server: McpStdioServerConfig, cwd: string): string | null {
  const file = server.command.includes("/")
    ? resolve(cwd, server.command)
    : findExecutable(server.command, { path: process.env.PATH ?? null });
  if (file === null) return null;
  const real = realOrSelf(file);
  return SYSTEM.some((dir) => real.startsWith(dir)) ? null : file;
}

function networkOf(server: McpStdioServerConfig, fallback: SandboxNetwork): SandboxNetwork {
  const network = server.network;
  if (network === undefined) return fallback;
  if (network === "off" || network === "on") return network;
  return { allow: [...network] };
}

function describeNetwork(network: SandboxNetwork): string {
  return typeof network === "string" ? network : `only ${network.allow.join(", ")}`;
}

/**
 * The profile of a sandboxed `server`.
 *
 * @throws BubError (config) when the workspace holds the home directory
 */
export function mcpServerProfile(
  server: McpStdioServerConfig,
  settings: SandboxSettings,
  workspace: string,
  hidden: readonly string[],
): SandboxProfile {
  const base = sandboxProfile(settings, workspace, hidden);
  if (base.home !== null && inside(realOrSelf(base.home), realOrSelf(workspace))) {
    throw new BubError(
      "config",
      `Cannot start MCP server '${server.name}' sandboxed in workspace "${workspace}": it holds ` +
        `the home directory (${base.home}). Start Bub in a project directory, or give the server ` +
        "sandbox: false",
      { server: server.name, workspace },
    );
  }
  const cwd = server.cwd === null ? workspace : resolve(workspace, server.cwd);
  const extra = parseSandboxPaths((server.paths ?? []).join(","));
  const readOnly = [...base.readOnly, ...extra.readOnly];
  if (!inside(realOrSelf(cwd), realOrSelf(workspace))) readOnly.push(cwd);
  const executable = executableToShow(server, cwd);
  if (executable !== null) readOnly.push(executable);
  return {
    ...base,
    network: networkOf(server, base.network),
    readOnly,
    readWrite: [...base.readWrite, ...extra.readWrite],
  };
}

/**
 * The `driverFor` of the builtin MCP manager: null (the host) or a sandboxing driver per server,
 * as the module doc says.
 *
 * @throws BubError (config), rejected, when a server must run sandboxed (`sandbox: true`, or the
 *   setting `required`) and the sandbox cannot run here
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mcpServerPlacement } from "./mcp_sandbox.ts";
 * import { loadSandboxSettings } from "./settings.ts";
 * const place = mcpServerPlacement({
 *   sandbox: () => loadSandboxSettings({ env: { BUB_SANDBOX: "off" } }),
 *   workspace: () => "/tmp",
 *   hiddenPaths: () => [],
 *   servesRemote: () => true,
 * });
 * const server = { transport: "stdio", name: "x", command: "x", args: [], env: {}, cwd: null } as const;
 * assert.equal(await place(server), null); // sandbox: off runs servers on the host
 * ```
 */
export function mcpServerPlacement(
  options: McpPlacementOptions,
): (server: McpStdioServerConfig) => Promise<McpServerDriver | null> {
  return async (server) => {
    const settings = options.sandbox();
    const mode = settings.sandbox;
    const byDefault = mode === "all" || mode === "required" ||
      (mode === "remote" && options.servesRemote());
    if (server.sandbox === false) {
      if (byDefault) {
        logger.warn(
          "MCP SERVER {server} RUNS UNSANDBOXED on this host (sandbox: false in mcp_servers), " +
            "with all of this user's rights, although sandbox: {mode} sandboxes this process's " +
            "sessions.",
          { server: server.name, mode },
        );
      }
      return null;
    }
    if (server.sandbox !== true && !byDefault) return null;
    const probe = await probeSandbox();
    if (!probe.ok) {
      if (server.sandbox === true || mode === "required") {
        throw new BubError(
          "config",
          `MCP server '${server.name}' must run sandboxed (${
            server.sandbox === true ? "sandbox: true" : "sandbox: required"
          }) but ${probe.reason} (install it with \`${SANDBOX_INSTALL_HINT}\`)`,
          { server: server.name, reason: probe.reason },
        );
      }
      logger.warn("MCP SERVER {server} RUNS UNSANDBOXED on this host: {reason}.", {
        server: server.name,
        reason: probe.reason,
      });
      return null;
    }
    const workspace = options.workspace();
    const profile = mcpServerProfile(server, settings, workspace, options.hiddenPaths());
    const driver = createSandboxDriver(processDriver(), profile, { spare: false });
    return {
      driver,
      description: `sandboxed, network ${describeNetwork(profile.network)}`,
      close: () => driver.close(),
    };
  };
}
