/**
 * {@link createSeatbeltDriver}: the macOS sandbox, a {@link ProcessDriver} decorator that starts
 * every process under Seatbelt: `bash -c 'ulimit …; exec "$@"' -- sandbox-exec -p <profile>
 * <file> <args>`, the profile written by `seatbelt_profile.ts` for each command.
 *
 * Each command gets a scratch folder of its own (its `TMPDIR` and `HOME`, empty at its start,
 * removed when it exits), since Seatbelt cannot give it a private `/tmp`. An allowlist network
 * goes through the session's egress proxy on a TCP port of 127.0.0.1, the one address the
 * profile lets a command reach. Unlike bubblewrap there is no PID namespace: the inner driver's
 * process group is what ends a command and its background jobs, and a process that leaves the
 * group (`setsid`) outlives the command (it still cannot signal or inspect Bub). `sandbox-exec`
 * starts in a few milliseconds, so there are no spare sandboxes (`prepare` does nothing).
 *
 * Not run by the CI (Linux only): its profile text is tested on every host, its e2e test only on
 * macOS.
 *
 * @module
 */
import process from "node:process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubError } from "../kernel/errors.ts";
import type {
  DriverChild,
  DriverSpawnRequest,
  GroupSignal,
  ProcessDriver,
  SignalOutcome,
} from "./process_driver.ts";
import { type EgressProxy, startEgressProxy } from "./egress_proxy.ts";
import { noProxyFor } from "./_no_proxy.ts";
import type { SandboxProfile } from "./sandbox_profile.ts";
import { SANDBOX_EXEC, seatbeltLimits, seatbeltProfile } from "./seatbelt_profile.ts";

/** A {@link ProcessDriver} whose children run under Seatbelt (the shape of `SandboxDriver`). */
export interface SeatbeltDriver extends ProcessDriver {
  /** The profile every child runs under. */
  readonly profile: SandboxProfile;
  /** Nothing to start ahead: `sandbox-exec` is cheap. */
  prepare(envPassthrough?: readonly string[] | null): void;
  /** Stops the egress proxy; the driver then refuses to start anything. */
  close(): Promise<void>;
}

/** Options of {@link createSeatbeltDriver}. */
export interface SeatbeltDriverOptions {
  /** The `sandbox-exec` executable (default `/usr/bin/sandbox-exec`). */
  sandboxExec?: string;
  /** The shell that sets the limits (default `/bin/bash`, which every macOS has). */
  bash?: string;
}

/**
 * Wraps `inner` so every child runs under `profile`'s Seatbelt profile.
 *
 * @example
 * ```ts ignore
 * import { processDriver } from "./driver_select.ts";
 * import { createSeatbeltDriver } from "./seatbelt_driver.ts";
 * import { DEFAULT_SANDBOX_LIMITS } from "./sandbox_profile.ts";
 * const driver = createSeatbeltDriver(processDriver(), {
 *   workspace: "/Users/me/project", network: "off", readOnly: [], readWrite: [], hidden: [],
 *   home: "/Users/me", limits: DEFAULT_SANDBOX_LIMITS,
 * });
 * const child = await driver.spawn({ file: "ls", args: [], cwd: null, env: null });
 * ```
 */
export function createSeatbeltDriver(
  inner: ProcessDriver,
  profile: SandboxProfile,
  options: SeatbeltDriverOptions = {},
): SeatbeltDriver {
  const sandboxExec = options.sandboxExec ?? SANDBOX_EXEC;
  const bash = options.bash ?? "/bin/bash";
  const allow = typeof profile.network === "object" ? profile.network.allow : null;
  const upstreams = typeof profile.network === "object" ? profile.network.upstreams ?? [] : [];
  let egress: Promise<EgressProxy> | null = null;
  let closed = false;
  const refuseClosed = (): void => {
    if (!closed) return;
    throw new BubError("invalid_input", "Cannot start a sandboxed process: the sandbox is closed");
  };
  return {
    name: `${inner.name}+seatbelt`,
    profile,
    async spawn(request: DriverSpawnRequest): Promise<DriverChild> {
      refuseClosed();
      let proxyPort: number | null = null;
      if (allow !== null) {
        egress ??= startEgressProxy({ allow, upstreams, socketPath: { port: 0 } });
        proxyPort = (await egress).port;
        refuseClosed();
      }
      const scratch = mkdtempSync(join(tmpdir(), "bub-sandbox-"));
      const home = join(scratch, "home");
      const tmp = join(scratch, "tmp");
      mkdirSync(home);
      mkdirSync(tmp);
      const env: Record<string, string> = { ...(request.env ?? {}), TMPDIR: tmp, HOME: home };
      if (proxyPort !== null) {
        const url = `http://127.0.0.1:${proxyPort}`;
        for (const name of PROXY_NAMES) env[name] = url;
        env.NODE_USE_ENV_PROXY = "1";
        for (const name of ["NO_PROXY", "no_proxy"]) {
          env[name] = noProxyFor(env[name] ?? process.env[name], allow!) ?? "";
        }
      }
      const sbpl = seatbeltProfile(profile, { scratch, proxyPort });
      const limits = seatbeltLimits(profile.limits);
      let child: DriverChild;
      try {
        child = await inner.spawn({
          ...request,
          file: bash,
          args: [
            "-c",
            `${limits === "" ? "" : `${limits} || exit 125; `}exec "$@"`,
            "bub-seatbelt",
            sandboxExec,
            "-p",
            sbpl,
            request.file,
            ...request.args,
          ],
          env,
        });
      } catch (error) {
        rmSync(scratch, { recursive: true, force: true });
        throw error;
      }
      const remove = () => rmSync(scratch, { recursive: true, force: true });
      child.exited.then(remove, remove);
      return child;
    },
    prepare(): void {},
    async close(): Promise<void> {
      closed = true;
      const proxy = egress;
      egress = null;
      const started = await proxy?.catch(() => null);
      if (started) await started[Symbol.asyncDispose]();
    },
    signalGroup(pgid: number, signal: GroupSignal): SignalOutcome {
      return inner.signalGroup(pgid, signal);
    },
  };
}

/** What tools read to find a proxy (see `sandbox_driver.ts`). */
const PROXY_NAMES = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
];
