/**
 * The builtin plugin's environment hooks: a host {@link LocalEnvironment} per session, or a
 * {@link SandboxedEnvironment} where the `sandbox` setting asks for one, and the shell runtime's
 * lifespan.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { defaultBuiltinSkillDirs, PROJECT_SKILLS_DIR } from "../skills/discovery.ts";
import { getLogger } from "../_internal/log.ts";
import { BubError } from "../kernel/errors.ts";
import { LocalEnvironment } from "../environment/local_environment.ts";
import { SandboxedEnvironment } from "../environment/sandboxed_environment.ts";
import { egressRelayMissing, probeSandbox, sandboxRemedy } from "../environment/sandbox_probe.ts";
import type { SandboxNetwork, SandboxProfile } from "../environment/sandbox_profile.ts";
import type { ShellManager } from "../environment/shell_manager.ts";
import type { ShellScope } from "../environment/shell_scope.ts";
import type { SandboxSettings } from "./settings_types.ts";
import { sandboxNetworkOf } from "./_settings_specs.ts";

const logger = getLogger(["bub", "sandbox"]);

/** Options of {@link createEnvironmentHooks}. */
export interface EnvironmentHooksOptions {
  /** The shell runtime whose lifespan `provideLifespan` returns. */
  shells: ShellManager;
  /**
   * The secret-named variables tool processes keep (setting `tool_env_passthrough`); null or
   * absent reads `BUB_TOOL_ENV_PASSTHROUGH` at spawn time.
   */
  envPassthrough?: () => readonly string[] | null;
  /** The sandbox settings (read at each session's start); absent: never sandboxed. */
  sandbox?: () => SandboxSettings;
  /** Paths a sandboxed command must not see (Bub's home: config, tapes, logs). */
  hiddenPaths?: () => readonly string[];
  /**
   * True when every session of this process belongs to the local terminal (`bub chat`,
   * `bub run`): `sandbox: remote` then sandboxes none.
   */
  localTerminal?: () => boolean;
  /**
   * The `telegram.api_root` setting (null: `https://api.telegram.org`): a sandboxed Telegram
   * session's network gets exactly that host and port, the Bot API its skill script answers
   * through.
   */
  telegramApiRoot?: () => string | null;
  /**
   * The `telegram.proxy` setting: a sandboxed Telegram session's egress proxy reaches the Bot API
   * through it, as the channel does.
   */
  telegramProxy?: () => string | null;
}

/** The two hook implementations returned by {@link createEnvironmentHooks}. */
export interface EnvironmentHooks {
  /**
   * `provideEnvironment`: an environment rooted at the framework workspace, sandboxed when the
   * `sandbox` setting covers the session and the sandbox runs here (probed before its first
   * command; unavailable: warned once, commands run on the host).
   */
  provideEnvironment(args: { sessionId: string; workspace: string }): LocalEnvironment;
  /**
   * `provideLifespan`: the shell manager's lifespan (one scope per `running()`); unless no
   * session can be sandboxed (`off`, or `remote` in `bub chat`/`bub run`) it first checks that
   * the sandbox runs: a loud warning when not, or with `required` a refusal to start.
   */
  provideLifespan(): AsyncGenerator<ShellScope, void, unknown>;
}

/**
 * True for a session of the local terminal: the CLI channel's (`cli:<chat>`, `cli_session`).
 *
 * @example
 * ```ts
 * import { isLocalTerminalSession } from "./environment_hooks.ts";
 * console.assert(isLocalTerminalSession("cli:local") && !isLocalTerminalSession("telegram:42"));
 * ```
 */
export function isLocalTerminalSession(sessionId: string): boolean {
  return sessionId === "cli_session" || sessionId.startsWith("cli:");
}

/** True for a session of the Telegram channel (`telegram:<chat>`). */
export function isTelegramSession(sessionId: string): boolean {
  return sessionId.startsWith("telegram:");
}

/**
 * The allowlist entry of the Bot API at `apiRoot` (null: `https://api.telegram.org`): its host
 * and port, nothing else.
 *
 * @throws BubError (config) when `apiRoot` is not an http(s) URL
 * @example
 * ```ts
 * import { botApiHost } from "./environment_hooks.ts";
 * console.assert(botApiHost(null) === "api.telegram.org:443");
 * console.assert(botApiHost("http://127.0.0.1:8081/") === "127.0.0.1:8081");
 * ```
 */
export function botApiHost(apiRoot: string | null): string {
  let url: URL | null = null;
  try {
    url = new URL(apiRoot || "https://api.telegram.org");
  } catch { /* reported below */ }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new BubError(
      "config",
      `telegram.api_root: ${JSON.stringify(apiRoot)} is not an http(s) URL`,
      { setting: "telegram.api_root" },
    );
  }
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname}:${port}`;
}

/** `network` with `hosts` reachable too, through `proxy` when given (`on` stays on). */
function withHosts(
  network: SandboxNetwork,
  hosts: readonly string[],
  proxy: string | null = null,
): SandboxNetwork {
  if (hosts.length === 0 || network === "on") return network;
  const allow = network === "off" ? [] : network.allow;
  return {
    allow: [...allow, ...hosts.filter((host) => !allow.includes(host))],
    ...(proxy ? { upstreams: [{ hosts: [...hosts], proxy }] } : {}),
  };
}

/** `sandbox_paths` as read-only and read-write lists (`<path>:rw` is read-write). */
export function parseSandboxPaths(
  text: string | null,
): { readOnly: string[]; readWrite: string[] } {
  const readOnly: string[] = [];
  const readWrite: string[] = [];
  for (const entry of (text ?? "").split(",").map((e) => e.trim()).filter(Boolean)) {
    if (entry.endsWith(":rw")) readWrite.push(entry.slice(0, -3));
    else readOnly.push(entry.endsWith(":ro") ? entry.slice(0, -3) : entry);
  }
  return { readOnly, readWrite };
}

/** The skill folders outside the workspace, shown read-only so skill scripts run. */
function skillDirs(home: string): string[] {
  const dirs = [join(home, PROJECT_SKILLS_DIR)];
  try {
    dirs.push(...defaultBuiltinSkillDirs());
  } catch { /* loaded from a URL: no builtin skills on disk */ }
  return dirs;
}

/**
 * The profile of `settings` for `workspace`. The runtime executing Bub (`$RUNTIME` of skill
 * scripts) is bound read-only: it often lives under the hidden home (`~/.deno`, `~/.bun`, nvm)
 * or in a project's own toolchain folder. `hosts` join the network's allowlist, reached through
 * `proxy` when given (`telegram.proxy`).
 */
export function sandboxProfile(
  settings: SandboxSettings,
  workspace: string,
  hidden: readonly string[] = [],
  hosts: readonly string[] = [],
  proxy: string | null = null,
): SandboxProfile {
  const mib = (value: number | null) => value === null ? null : value * 1024 * 1024;
  const paths = parseSandboxPaths(settings.sandbox_paths);
  // $HOME as the commands see it (Bun's homedir() keeps the start-up value).
  const home = process.env.HOME || homedir();
  return {
    workspace,
    network: withHosts(sandboxNetworkOf(settings.sandbox_network), hosts, proxy),
    readOnly: [
      ...paths.readOnly,
      ...skillDirs(home).filter((dir) => existsSync(dir)),
      process.execPath,
    ],
    readWrite: paths.readWrite,
    hidden: [...hidden],
    home,
    limits: {
      cpuSeconds: settings.sandbox_cpu_seconds,
      memoryBytes: mib(settings.sandbox_memory_mb),
      processes: settings.sandbox_processes,
      fileBytes: mib(settings.sandbox_file_mb),
    },
  };
}

/** The loud warning when a wanted sandbox cannot run. */
function warnUnsandboxed(reason: string): void {
  logger.warn(
    "SANDBOX UNAVAILABLE: {reason}. Commands of remote sessions run UNSANDBOXED on this host, " +
      "with all of this user's rights. To fix it, {remedy}; or set sandbox: required to refuse " +
      "to start without it (sandbox: off silences this).",
    { reason, remedy: sandboxRemedy() },
  );
}

/** The loud warning when sandboxed sessions can run but reach no host. */
function warnNoRelay(): void {
  logger.warn(
    "SANDBOX WITHOUT NETWORK: socat is not installed, so sandboxed sessions reach no host, not " +
      "even a Telegram session's Bot API (its replies fail) or the hosts of sandbox_network. " +
      "Install it with `apt-get install socat`.",
  );
}

/**
 * Creates the builtin `provideEnvironment` and `provideLifespan` implementations.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShellManager } from "../environment/shell_manager.ts";
 * import { createEnvironmentHooks } from "./environment_hooks.ts";
 * const hooks = createEnvironmentHooks({ shells: new ShellManager() });
 * const env = hooks.provideEnvironment({ sessionId: "cli:local", workspace: "/tmp" });
 * assert.ok(env.workspace === "/tmp");
 * ```
 */
export function createEnvironmentHooks(options: EnvironmentHooksOptions): EnvironmentHooks {
  const { shells } = options;
  let warned = false;
  /** Whether the sandbox runs here; warns once, or throws for `required`. */
  const usable = async (mode: SandboxSettings["sandbox"]): Promise<boolean> => {
    const probe = await probeSandbox();
    if (probe.ok) {
      if (!warned && egressRelayMissing()) warnNoRelay();
      warned = true;
      return true;
    }
    if (mode === "required") {
      throw new BubError(
        "config",
        `Cannot start: sandbox is required but ${probe.reason} (${sandboxRemedy()}, or set sandbox: remote)`,
        { setting: "sandbox", reason: probe.reason },
      );
    }
    if (!warned) warnUnsandboxed(probe.reason);
    warned = true;
    return false;
  };
  const wanted = (settings: SandboxSettings, sessionId: string): boolean => {
    if (settings.sandbox === "off") return false;
    if (settings.sandbox !== "remote") return true;
    return !(options.localTerminal?.() ?? false) && !isLocalTerminalSession(sessionId);
  };
  return {
    provideEnvironment({ sessionId, workspace }): LocalEnvironment {
      const envPassthrough = options.envPassthrough?.();
      const settings = options.sandbox?.();
      if (!settings || !wanted(settings, sessionId)) {
        return new LocalEnvironment(workspace, { envPassthrough });
      }
      const telegram = isTelegramSession(sessionId);
      const hosts = telegram ? [botApiHost(options.telegramApiRoot?.() ?? null)] : [];
      const proxy = telegram ? options.telegramProxy?.() ?? null : null;
      const hidden = options.hiddenPaths?.() ?? [];
      const profile = sandboxProfile(settings, workspace, hidden, hosts, proxy);
      return new SandboxedEnvironment(profile, {
        envPassthrough,
        available: () => usable(settings.sandbox),
      });
    },
    async *provideLifespan(): AsyncGenerator<ShellScope, void, unknown> {
      const mode = options.sandbox?.().sandbox ?? "off";
      const local = mode === "remote" && (options.localTerminal?.() ?? false);
      if (mode !== "off" && !local) await usable(mode);
      yield* shells.lifespan();
    },
  };
}
