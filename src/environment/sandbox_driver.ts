/**
 * {@link createSandboxDriver}: a {@link ProcessDriver} decorator that starts every process inside
 * a bubblewrap sandbox: `prlimit <limits> -- bwrap <profile> -- <file> <args>`.
 *
 * The started child (the group leader the inner driver signals) is `bwrap` itself (where the
 * session has cgroups, a shell that joins them and executes `prlimit` first). It runs the
 * command as the init of a fresh PID namespace with `--die-with-parent`, so a signal that ends
 * the group (TERM or KILL) ends `bwrap`, and with it every process inside, background jobs
 * included; when the command itself exits, its init exits and the kernel kills what is left.
 * `bwrap` gets only the tool environment (`tool_env.ts`), so `/proc/1/environ` inside holds
 * nothing of Bub's. Once a session has run a command, the next one's sandbox is started ahead of
 * it and waits (`_sandbox_spare.ts`), so a command pays little of the sandbox's set-up; a turn
 * starts its session's first one while the model is asked ({@link SandboxDriver.prepare}).
 * On macOS the same profile runs under Seatbelt instead (`seatbelt_driver.ts`).
 *
 * @module
 */
import type {
  DriverChild,
  DriverSpawnRequest,
  GroupSignal,
  ProcessDriver,
  SignalOutcome,
} from "./process_driver.ts";
import process from "node:process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubError } from "../kernel/errors.ts";
import { type EgressProxy, startEgressProxy } from "./egress_proxy.ts";
import { findExecutable } from "../_internal/find_executable.ts";
import { noProxyFor } from "./_no_proxy.ts";
import { bwrapArgs, prlimitArgs, type SandboxProfile } from "./sandbox_profile.ts";
import { SPARE_TRAMPOLINE, spareRequest, SpareSlot } from "./_sandbox_spare.ts";
import { createSessionCgroups, joinCgroupsArgv, removeCgroup } from "./_sandbox_cgroups.ts";
import { sandboxBackend } from "./sandbox_backend.ts";
import { createSeatbeltDriver } from "./seatbelt_driver.ts";

/** Options of {@link createSandboxDriver}. */
export interface SandboxDriverOptions {
  /** The `bwrap` executable (default `bwrap` on `PATH`). */
  bwrap?: string;
  /** The `prlimit` executable (default `prlimit` on `PATH`). */
  prlimit?: string;
  /**
   * Start the next command's sandbox ahead of it once a command ran (default true); off for a
   * driver that starts one long-lived process (an MCP server, the probe).
   */
  spare?: boolean;
}

/** A {@link ProcessDriver} whose children run sandboxed; `profile` says what they reach. */
export interface SandboxDriver extends ProcessDriver {
  /** The profile every child runs under. */
  readonly profile: SandboxProfile;
  /**
   * Starts the next command's sandbox ahead of it (a spare, `_sandbox_spare.ts`) unless one waits
   * or the driver has no spares or is closed: call it before a command is likely (a turn's model
   * call), so even a session's first command skips the sandbox's set-up. `envPassthrough` must be
   * what the command's request will carry. An unused spare ends after its idle timeout or at
   * {@link SandboxDriver.close}.
   */
  prepare(envPassthrough?: readonly string[] | null): void;
  /**
   * Releases what the driver holds (its spare, its cgroups once their processes are gone, its
   * proxy); the driver then refuses to start anything.
   */
  close(): Promise<void>;
}

/**
 * Wraps `inner` so every child runs in `profile`'s sandbox: bubblewrap, or on macOS Seatbelt
 * (`seatbelt_driver.ts`, which ignores `options`).
 *
 * @example
 * ```ts ignore
 * import { processDriver } from "./driver_select.ts";
 * import { createSandboxDriver } from "./sandbox_driver.ts";
 * import { DEFAULT_SANDBOX_LIMITS } from "./sandbox_profile.ts";
 * const driver = createSandboxDriver(processDriver(), {
 *   workspace: "/tmp", network: "off", readOnly: [], readWrite: [], hidden: [], home: null,
 *   limits: DEFAULT_SANDBOX_LIMITS,
 * });
 * const child = await driver.spawn({ file: "ls", args: ["/"], cwd: "/tmp", env: null });
 * console.assert((await child.exited) === 0);
 * ```
 */
export function createSandboxDriver(
  inner: ProcessDriver,
  profile: SandboxProfile,
  options: SandboxDriverOptions = {},
): SandboxDriver {
  if (sandboxBackend() === "seatbelt") return createSeatbeltDriver(inner, profile);
  const bwrap = options.bwrap ?? "bwrap";
  const prlimit = options.prlimit ?? "prlimit";
  let base: string[] | null = null;
  const allow = typeof profile.network === "object" ? profile.network.allow : null;
  const upstreams = typeof profile.network === "object" ? profile.network.upstreams ?? [] : [];
  /** The session's egress proxy (a host allowlist), started with its first command. */
  let egress: Promise<EgressProxy> | null = null;
  /**
   * The session's cgroups (`_sandbox_cgroups.ts`: its memory and, for a root Bub, its processes),
   * shared by the driver's children: one per session, because a cgroup per command cost ~10 ms a
   * command (mkdir, rmdir after the namespace is torn down).
   */
  let cgroups: { dirs: string[]; memory: boolean } | null = null;
  const spares = options.spare === false ? null : new SpareSlot(inner);
  let closed = false;
  /** A start after `close` would bring back the cgroups and the proxy that `close` released. */
  const refuseClosed = (): void => {
    if (!closed) return;
    throw new BubError("invalid_input", "Cannot start a sandboxed process: the sandbox is closed");
  };
  /** The variables added to a command's environment (`requested`: the request's own). */
  const commandEnv = (requested: Record<string, string> | null): Record<string, string> => {
    // The host's TMPDIR is not inside; the private /tmp is.
    const env: Record<string, string> = { ...(requested ?? {}), TMPDIR: "/tmp" };
    if (allow === null) return env;
    Object.assign(env, PROXY_ENV);
    // A host's NO_PROXY entry for an allowlisted host would bypass the only way out (the
    // inner driver adds `env` to the host's variables: an empty value stands for none).
    for (const name of ["NO_PROXY", "no_proxy"]) {
      env[name] = noProxyFor(env[name] ?? process.env[name], allow) ?? "";
    }
    return env;
  };
  /**
   * Starts a sandbox running `command`, or (null) a spare that reads its command from stdin (the
   * spare gets only the request's passthrough names: its variables come with the command).
   */
  const start = async (
    request: DriverSpawnRequest,
    command: string[] | null,
  ): Promise<DriverChild> => {
    refuseClosed();
    base ??= bwrapArgs(profile);
    cgroups ??= createSessionCgroups(profile.limits);
    // Where a memory cgroup bounds the session, address space stays unbounded.
    const limits = prlimitArgs(
      cgroups.memory ? { ...profile.limits, memoryBytes: null } : profile.limits,
    );
    let bindProxy: string[] = [];
    let relay = "";
    const env = commandEnv(command === null ? null : request.env);
    if (allow !== null) {
      egress ??= startEgress(allow, upstreams);
      const proxy = await egress;
      refuseClosed();
      bindProxy = ["--bind", proxy.socketPath, EGRESS_SOCKET];
      relay = EGRESS_RELAY;
    }
    const inside = command === null
      ? ["bash", "-c", `${relay}${SPARE_TRAMPOLINE}`, "bub-spare"]
      : relay === ""
      ? command
      : ["bash", "-c", `${relay}exec "$@"`, "bub-egress", ...command];
    const argv = [
      ...(cgroups.dirs.length === 0 ? [] : joinCgroupsArgv(cgroups.dirs)),
      ...(limits.length > 0 ? [prlimit, ...limits, "--"] : []),
      bwrap,
      ...base,
      ...bindProxy,
      "--chdir",
      command === null ? profile.workspace : request.cwd ?? profile.workspace,
      "--",
      ...inside,
    ];
    const [file, ...args] = argv as [string, ...string[]];
    return await inner.spawn({ ...request, file, args, cwd: profile.workspace, env });
  };
  return {
    name: `${inner.name}+bwrap`,
    profile,
    async spawn(request: DriverSpawnRequest): Promise<DriverChild> {
      const cwd = request.cwd ?? profile.workspace;
      const key = JSON.stringify(request.envPassthrough ?? null);
      if (spares !== null) {
        const argv = [request.file, ...request.args];
        const ready = await spares.take(key, spareRequest(cwd, argv, commandEnv(request.env)));
        if (ready !== null) {
          spares.fill(key, () => start(request, null));
          return ready;
        }
      }
      const child = await start(request, [request.file, ...request.args]);
      spares?.fill(key, () => start(request, null));
      return child;
    },
    prepare(envPassthrough: readonly string[] | null = null): void {
      if (closed) return;
      const request = { file: "true", args: [], cwd: null, env: null, envPassthrough };
      spares?.fill(JSON.stringify(envPassthrough), () => start(request, null));
    },
    async close(): Promise<void> {
      closed = true;
      await spares?.close();
      const dirs = cgroups?.dirs ?? [];
      cgroups = null;
      // Not awaited: the retries wait on unref'd timers (a leftover is swept at the next start).
      for (const dir of dirs) void removeCgroup(dir);
      const proxy = egress;
      egress = null;
      if (proxy) await stopEgress(proxy);
    },
    signalGroup(pgid: number, signal: GroupSignal): SignalOutcome {
      return inner.signalGroup(pgid, signal);
    },
  };
}

/** Where the egress proxy's socket appears inside the sandbox. */
const EGRESS_SOCKET = "/run/bub-egress.sock";
/** The port inside the sandbox that relays to it. */
const EGRESS_PORT = 3128;

/**
 * What tools read to find a proxy (most honour one spelling or the other). Node's `fetch` and
 * `http` ignore them unless `NODE_USE_ENV_PROXY=1` (Node >= 24.5 or 22.21; older Node cannot use
 * the allowlist); Deno, Bun and curl honour them as they are.
 */
const PROXY_ENV: Record<string, string> = {
  ...Object.fromEntries(
    ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"].map(
      (name) => [name, `http://127.0.0.1:${EGRESS_PORT}`],
    ),
  ),
  NODE_USE_ENV_PROXY: "1",
};

/**
 * Runs inside the sandbox before the command: `socat` relays 127.0.0.1:3128 to the proxy's socket
 * (the namespace has no other way out), the command starts once the port listens (seen in the
 * namespace's own `/proc/net/tcp`, without connecting). `socat` gets SIGKILL when the shell that
 * becomes the command ends (`setpriv --pdeathsig`): bwrap's init waits for every process of the
 * sandbox, so a relay outliving the command kept the sandbox alive for good whenever Bub was
 * killed while a spare was starting (8 of 20 rounds of SIGKILL left one).
 */
const EGRESS_RELAY = `$(command -v setpriv >/dev/null && echo setpriv --pdeathsig KILL) ` +
  `socat TCP-LISTEN:${EGRESS_PORT},bind=127.0.0.1,fork,reuseaddr ` +
  `UNIX-CONNECT:${EGRESS_SOCKET} 2>/dev/null &
for _ in $(seq 500); do grep -qi ':${
    EGRESS_PORT.toString(16).toUpperCase().padStart(4, "0")
  } 00000000:0000 0A' /proc/net/tcp && break; sleep 0.002; done
`;

/**
 * Starts the proxy of an allowlist on a socket in a private folder of its own.
 *
 * @throws BubError (config) when `socat` is missing (the relay inside the sandbox needs it)
 */
async function startEgress(
  allow: readonly string[],
  upstreams: NonNullable<Exclude<SandboxProfile["network"], string>["upstreams"]>,
): Promise<EgressProxy> {
  if (findExecutable("socat", { path: process.env.PATH ?? null }) === null) {
    throw new BubError(
      "config",
      "This sandbox reaches listed hosts (sandbox_network, or a Telegram session's Bot API), " +
        "which needs socat inside the sandbox: install it (apt-get install socat), or set " +
        "sandbox_network to off or on",
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "bub-egress-"));
  try {
    return await startEgressProxy({ allow, upstreams, socketPath: join(dir, "proxy.sock") });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function stopEgress(proxy: Promise<EgressProxy>): Promise<void> {
  const started = await proxy.catch(() => null);
  if (!started) return;
  await started[Symbol.asyncDispose]();
  rmSync(join(started.socketPath, ".."), { recursive: true, force: true });
}
