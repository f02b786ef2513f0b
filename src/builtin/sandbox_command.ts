/**
 * `bub sandbox status`: whether the sandbox runs on this host, which sessions the `sandbox`
 * setting covers, and the effective profile of a session (paths, network, limits), each with the
 * setting it comes from. It asks nothing of the model and starts no session.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import {
  egressRelayMissing,
  probeSandbox,
  sandboxMemoryBound,
  sandboxRemedy,
} from "../environment/sandbox_probe.ts";
import type { SandboxNetwork, SandboxProfile } from "../environment/sandbox_profile.ts";
import { sandboxBackend } from "../environment/sandbox_backend.ts";
import { SEATBELT_SYSTEM_PATHS } from "../environment/seatbelt_profile.ts";
import { redactedProxy } from "../environment/egress_proxy.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import { CliExit, type CliOutput } from "./cli_io.ts";
import {
  botApiHost,
  isLocalTerminalSession,
  isTelegramSession,
  sandboxProfile,
} from "./environment_hooks.ts";
import type { BuiltinRuntime } from "./runtime.ts";
import { parseMcpServers } from "../tools/mcp/config.ts";
import { sandboxNetworkOf } from "./_settings_specs.ts";
import { loadSandboxSettings, loadTelegramSettings } from "./settings.ts";

/** Options of {@link sandboxStatusCommand}. */
export interface SandboxStatusOptions {
  /** The session whose profile is printed. Default `telegram:<chat>` (a remote session). */
  session?: string;
  /** Print JSON instead of text. */
  json?: boolean;
}

/** Why `mode` sandboxes `session`, or why not. */
function coverage(mode: string, session: string): { sandboxed: boolean; why: string } {
  if (mode === "off") return { sandboxed: false, why: "sandbox: off sandboxes no session" };
  if (mode !== "remote") {
    return { sandboxed: true, why: `sandbox: ${mode} sandboxes every session` };
  }
  if (isLocalTerminalSession(session)) {
    return {
      sandboxed: false,
      why:
        "sandbox: remote leaves the local terminal's sessions (and bub chat, bub run) on the host",
    };
  }
  return {
    sandboxed: true,
    why: "sandbox: remote sandboxes every session not of the local terminal",
  };
}

function networkText(network: SandboxNetwork): string {
  if (network === "off") return "off (no host, not even 127.0.0.1)";
  if (network === "on") return "on (the host's network)";
  const via = (network.upstreams ?? []).map((route) =>
    `, ${route.hosts.join(", ")} through ${redactedProxy(route.proxy)} (telegram.proxy)`
  ).join("");
  return `only ${network.allow.join(", ")} (through the egress proxy${via})`;
}

const mib = (bytes: number | null) => bytes === null ? "unlimited" : `${bytes / 1024 ** 2} MiB`;

/** `profile` with the password of an upstream proxy hidden. */
function redacted(profile: SandboxProfile): SandboxProfile {
  const network = profile.network;
  if (typeof network === "string" || !network.upstreams) return profile;
  const upstreams = network.upstreams.map((route) => ({
    ...route,
    proxy: redactedProxy(route.proxy),
  }));
  return { ...profile, network: { ...network, upstreams } };
}

/** What `sandbox_memory_mb` bounds here, and by which mechanism. */
function memoryText(bytes: number | null): string {
  const bound = sandboxMemoryBound();
  if (bytes === null) return "memory unlimited (sandbox_memory_mb)";
  if (bound.kind === "rlimit") {
    return `address space ${mib(bytes)} per process (sandbox_memory_mb; RLIMIT_AS, not resident ` +
      `memory: ${bound.why})`;
  }
  return `memory ${mib(bytes)} for the session's processes together (sandbox_memory_mb; ` +
    `${bound.kind} ${bound.file})`;
}

/** Where each stdio MCP server of `config` runs under `mode` (see `mcp_sandbox.ts`). */
function mcpPlacements(
  config: Readonly<Record<string, unknown>>,
  mode: string,
  network: SandboxNetwork,
): { server: string; runs: string }[] {
  let servers: ReturnType<typeof parseMcpServers>;
  try {
    servers = parseMcpServers(config);
  } catch {
    return []; // `bub mcp` names the bad key
  }
  return servers.flatMap((server) => {
    if (server.transport !== "stdio") return [];
    const own = server.network === undefined
      ? network
      : typeof server.network === "string"
      ? server.network
      : { allow: [...server.network] };
    const sandboxed = `sandboxed, network ${networkText(own)}`;
    let runs: string;
    if (server.sandbox === false) runs = "on the host (sandbox: false)";
    else if (server.sandbox === true || mode === "all" || mode === "required") runs = sandboxed;
    else if (mode === "remote") {
      runs = `${sandboxed} in bub gateway and bub web; on the host in bub chat, run, acp and mcp`;
    } else runs = "on the host (sandbox: off)";
    return [{ server: server.name, runs }];
  });
}

/**
 * Prints the sandbox status. Exits 1 when the sandbox is `required` and cannot run (as `bub`
 * itself would refuse to start).
 *
 * @throws {CliExit} (1) for a bad sandbox setting, or `required` without a working sandbox
 */
export async function sandboxStatusCommand(
  framework: KernelFramework,
  runtime: BuiltinRuntime,
  output: CliOutput,
  options: SandboxStatusOptions = {},
): Promise<void> {
  const session = options.session ?? "telegram:<chat>";
  let settings: ReturnType<typeof loadSandboxSettings>;
  let apiRoot: string | null;
  let telegramProxy: string | null;
  try {
    settings = loadSandboxSettings(runtime.sources);
    ({ api_root: apiRoot, proxy: telegramProxy } = loadTelegramSettings(runtime.sources));
  } catch (error) {
    throw new CliExit(1, error instanceof Error ? error.message : String(error));
  }
  const probe = await probeSandbox();
  const relay = !egressRelayMissing();
  const covered = coverage(settings.sandbox, session);
  const hosts = isTelegramSession(session) ? [botApiHost(apiRoot)] : [];
  const proxy = hosts.length > 0 ? telegramProxy : null;
  const profile = sandboxProfile(settings, framework.workspace, [framework.home], hosts, proxy);
  const runs = covered.sandboxed && probe.ok;
  const data = {
    mode: settings.sandbox,
    /** Which sandbox runs commands here (`bwrap` keeps its name for the status of either). */
    backend: sandboxBackend() ?? "none",
    bwrap: probe.ok ? "works" : probe.reason,
    socat: relay ? "found" : "missing",
    session,
    sandboxed: runs,
    why: covered.sandboxed && !probe.ok
      ? `${covered.why}, but the sandbox cannot run here: ${probe.reason}`
      : covered.why,
    profile: runs ? { ...redacted(profile), workspace: realpathOrSelf(profile.workspace) } : null,
    memory_bound: sandboxMemoryBound(),
    mcp_servers: mcpPlacements(
      framework.config,
      settings.sandbox,
      sandboxNetworkOf(settings.sandbox_network),
    ),
  };
  if (options.json) output.out(`${JSON.stringify(data, null, 2)}\n`);
  else {
    const mcp = data.mcp_servers.map(({ server, runs }) => `mcp server ${server}: ${runs}`);
    output.out(`${[...describe(data, profile, hosts), ...mcp].join("\n")}\n`);
  }
  if (settings.sandbox === "required" && !probe.ok) {
    throw new CliExit(1, `sandbox is required but ${probe.reason}`);
  }
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function describe(
  data: {
    mode: string;
    backend: string;
    bwrap: string;
    socat: string;
    session: string;
    sandboxed: boolean;
    why: string;
  },
  profile: ReturnType<typeof sandboxProfile>,
  hosts: readonly string[],
): string[] {
  const seatbelt = data.backend === "seatbelt";
  const lines = [
    `sandbox: ${data.mode}`,
    `${seatbelt ? "seatbelt (sandbox-exec)" : "bwrap"}: ${
      data.bwrap === "works" ? "works" : `unavailable: ${data.bwrap} (${sandboxRemedy()})`
    }`,
    ...(seatbelt ? [] : [
      `socat: ${
        data.socat === "found"
          ? "found"
          : "missing: sandboxed sessions reach no host (apt-get install socat)"
      }`,
    ]),
    `session ${data.session}: ${data.sandboxed ? "sandboxed" : "not sandboxed"} (${data.why})`,
  ];
  if (!data.sandboxed) return lines;
  const limits = profile.limits;
  lines.push(
    `  workspace (read-write): ${profile.workspace}`,
    `  system directories (read-only): ${
      seatbelt
        ? SEATBELT_SYSTEM_PATHS.join(" ")
        : "/usr /bin /sbin /lib* /etc (private files masked) /opt"
    }`,
    `  extra read-only (sandbox_paths, skills, the runtime): ${
      profile.readOnly.join(" ") || "none"
    }`,
    `  extra read-write (sandbox_paths :rw): ${profile.readWrite.join(" ") || "none"}`,
    `  hidden (Bub's home: config, tapes, logs): ${profile.hidden.join(" ") || "none"}`,
    seatbelt
      ? `  home ${profile.home ?? "-"} denied; $HOME and $TMPDIR: a folder of each command, ` +
        "empty at its start (/tmp is not writable)"
      : `  home ${profile.home ?? "-"}, /tmp: private and empty at each command's start`,
    `  network (sandbox_network${
      hosts.length > 0 ? " + the Telegram Bot API, telegram.api_root" : ""
    }): ${networkText(profile.network)}`,
    `  limits: cpu ${limits.cpuSeconds ?? "unlimited"} s (sandbox_cpu_seconds), ${
      memoryText(limits.memoryBytes)
    }, processes ${limits.processes ?? "unlimited"} (sandbox_processes), file ${
      mib(limits.fileBytes)
    } (sandbox_file_mb)`,
  );
  return lines;
}
