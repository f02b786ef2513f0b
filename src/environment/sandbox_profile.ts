/**
 * What a sandboxed command may reach, the `prlimit` + `bwrap` command line that enforces it, and
 * the system-prompt paragraph that tells the model.
 *
 * The root of the sandbox is an empty tmpfs: only what the profile binds exists inside. The
 * workspace is bound read-write at its own path, the system directories read-only, `/tmp` and
 * `$HOME` are private tmpfs, Bub's home and every hidden path are covered by an empty tmpfs where
 * they sit under a bound directory. Files of `/etc` that another user could not read on the host
 * (`/etc/shadow`, private keys) are masked, because a root Bub stays uid 0 inside.
 *
 * @module
 */
import { lstatSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { readdirQuiet } from "../_internal/read_dir.ts";
import { isAbsolute, join, resolve } from "node:path";

/**
 * `off`: no network namespace is shared (only a private loopback); `on`: the host's network;
 * `{ allow }`: only those hosts (see `egress_proxy.ts`), through a proxy on a Unix socket, which
 * reaches the hosts of an `upstreams` route through that route's proxy.
 */
export type SandboxNetwork = "off" | "on" | {
  readonly allow: readonly string[];
  readonly upstreams?: readonly { readonly hosts: readonly string[]; readonly proxy: string }[];
};

/** Resource limits of each sandboxed command (`prlimit`); null leaves one unlimited. */
export interface SandboxLimits {
  /** CPU seconds of each process (RLIMIT_CPU). */
  cpuSeconds: number | null;
  /**
   * Memory in bytes: of all a session's processes together where Bub may create a memory cgroup
   * (`_sandbox_cgroups.ts`), else the address space of each process (RLIMIT_AS).
   */
  memoryBytes: number | null;
  /** Processes of the sandbox's user (RLIMIT_NPROC; a root Bub: see `_sandbox_cgroups.ts`). */
  processes: number | null;
  /** Largest file a process may write, in bytes (RLIMIT_FSIZE). */
  fileBytes: number | null;
}

/** The defaults of {@link SandboxLimits}. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  cpuSeconds: 600,
  // 64 GiB of address space (not memory): Deno 2 needs more than 32 GiB of it to start (measured).
  memoryBytes: 64 * 1024 ** 3,
  processes: 512,
  fileBytes: 1024 ** 3,
};

/** Everything a sandboxed command may reach. */
export interface SandboxProfile {
  /** The workspace, bound read-write at the same path. */
  workspace: string;
  /** Network access. */
  network: SandboxNetwork;
  /** Extra host paths bound read-only at the same path (missing ones are skipped). */
  readOnly: readonly string[];
  /** Extra host paths bound read-write at the same path (missing ones are skipped). */
  readWrite: readonly string[];
  /** Host paths covered by an empty tmpfs wherever they are visible (Bub's home, tapes). */
  hidden: readonly string[];
  /** The user's home directory, replaced by an empty private tmpfs; null for none. */
  home: string | null;
  /** Resource limits. */
  limits: SandboxLimits;
}

/** The system directories bound read-only (or recreated as the same symlink). */
const SYSTEM_PATHS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
];

/** One bind, tmpfs or symlink operation at `path`. */
interface Mount {
  path: string;
  args: string[];
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/**
 * The paths under `/etc` that a user other than their owner could not read: each is covered (a
 * file by `/dev/null`, a directory by an empty tmpfs). Walked once per process.
 */
let etcMasks: Mount[] | null = null;
function privateEtc(): Mount[] {
  if (etcMasks) return etcMasks;
  const out: Mount[] = [];
  const walk = (dir: string, depth: number): void => {
    for (const name of readdirQuiet(dir)) {
      const path = join(dir, name);
      const info = lstatOrNull(path);
      if (!info || info.isSymbolicLink()) continue;
      const worldReadable = (info.mode & 0o004) !== 0;
      if (info.isDirectory()) {
        if (!worldReadable || (info.mode & 0o001) === 0) {
          out.push({ path, args: ["--tmpfs", path, "--remount-ro", path] });
        } else if (depth < 4) walk(path, depth + 1);
      } else if (!worldReadable) {
        out.push({ path, args: ["--ro-bind", "/dev/null", path] });
      }
    }
  };
  walk("/etc", 0);
  etcMasks = out;
  return out;
}

function systemMounts(): Mount[] {
  const out: Mount[] = [];
  for (const path of SYSTEM_PATHS) {
    const info = lstatOrNull(path);
    if (!info) continue;
    if (info.isSymbolicLink()) {
      out.push({ path, args: ["--symlink", readlinkSync(path), path] });
    } else if (info.isDirectory()) out.push({ path, args: ["--ro-bind", path, path] });
  }
  // A resolv.conf that links out of /etc (systemd-resolved) needs its target.
  const resolv = realpathOrSelf("/etc/resolv.conf");
  if (!resolv.startsWith("/etc/")) {
    out.push({ path: resolv, args: ["--ro-bind-try", resolv, resolv] });
  }
  return out;
}

function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent === "/" ? "/" : `${parent}/`);
}

/**
 * The `bwrap` arguments of `profile` (without the command): namespaces, mounts ordered parents
 * first, so a hidden directory above the workspace is covered before the workspace is bound
 * into it and one inside the workspace after.
 *
 * @example
 * ```ts
 * import { bwrapArgs, DEFAULT_SANDBOX_LIMITS } from "./sandbox_profile.ts";
 * const args = bwrapArgs({
 *   workspace: "/tmp/ws", network: "off", readOnly: [], readWrite: [], hidden: [], home: null,
 *   limits: DEFAULT_SANDBOX_LIMITS,
 * });
 * console.assert(args.includes("--unshare-net") && args.includes("--die-with-parent"));
 * ```
 */
export function bwrapArgs(profile: SandboxProfile): string[] {
  const workspace = realpathOrSelf(profile.workspace);
  const namespaces = [
    "--unshare-user",
    // No nested user namespace: it would give the command back capabilities over its mounts.
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(profile.network === "on" ? [] : ["--unshare-net"]),
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
  ];
  const binds: Mount[] = [];
  const bound: string[] = [workspace, "/tmp"];
  for (const path of profile.readOnly) {
    const real = realpathOrSelf(path);
    binds.push({ path: real, args: ["--ro-bind-try", real, real] });
    bound.push(real);
  }
  for (const path of profile.readWrite) {
    const real = realpathOrSelf(path);
    binds.push({ path: real, args: ["--bind-try", real, real] });
    bound.push(real);
  }
  binds.push({ path: workspace, args: ["--bind", workspace, workspace] });
  const system = systemMounts();
  bound.push(...system.map((mount) => mount.path));
  // A path given through a symlink is bound at its real path; the given one links there.
  for (const path of [profile.workspace, ...profile.readOnly, ...profile.readWrite]) {
    const given = resolve(path);
    const real = realpathOrSelf(path);
    // Inside a host directory bound here, the link itself is visible already.
    if (given === real || bound.some((b) => b !== "/tmp" && isInside(given, b))) continue;
    binds.push({ path: given, args: ["--symlink", real, given] });
    bound.push(given);
  }
  const covers: Mount[] = [{ path: "/tmp", args: ["--tmpfs", "/tmp"] }];
  if (profile.home !== null && isAbsolute(profile.home)) {
    const home = realpathOrSelf(profile.home);
    if (!isInside(home, workspace)) {
      covers.push({ path: home, args: ["--tmpfs", home] });
    }
  }
  for (const path of profile.hidden) {
    if (!isAbsolute(path)) continue;
    const real = realpathOrSelf(path);
    // Invisible already unless it holds or sits under something bound.
    if (real === workspace) continue;
    if (!bound.some((b) => isInside(real, b) || isInside(b, real))) continue;
    covers.push({ path: real, args: ["--tmpfs", real] });
  }
  const mounts = [...system, ...privateEtc(), ...covers, ...binds];
  // Stable sort: parents before children; at equal depth the order above holds.
  mounts.sort((a, b) => depth(a.path) - depth(b.path));
  return [
    ...namespaces,
    ...mounts.flatMap((mount) => mount.args),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
  ];
}

/** The `prlimit` options of `limits` (empty when every limit is off). */
export function prlimitArgs(limits: SandboxLimits): string[] {
  const out: string[] = [];
  if (limits.cpuSeconds !== null) out.push(`--cpu=${Math.ceil(limits.cpuSeconds)}`);
  if (limits.memoryBytes !== null) out.push(`--as=${Math.floor(limits.memoryBytes)}`);
  if (limits.processes !== null) out.push(`--nproc=${Math.floor(limits.processes)}`);
  if (limits.fileBytes !== null) out.push(`--fsize=${Math.floor(limits.fileBytes)}`);
  return out;
}

function networkNote(network: SandboxNetwork): string {
  if (network === "on") return "on";
  if (network === "off") return "off: no host, not even 127.0.0.1, can be reached";
  return `limited to ${network.allow.join(", ")}, reached through the proxy in HTTP_PROXY and ` +
    "HTTPS_PROXY (tools that ignore them cannot connect); every other host is refused";
}

/**
 * The system-prompt paragraph of a sandboxed session: what its commands reach, so the model
 * does not retry what the sandbox refuses.
 *
 * @example
 * ```ts
 * import { DEFAULT_SANDBOX_LIMITS, sandboxPromptNote } from "./sandbox_profile.ts";
 * const note = sandboxPromptNote({
 *   workspace: "/w", network: "off", readOnly: [], readWrite: [], hidden: [], home: null,
 *   limits: DEFAULT_SANDBOX_LIMITS,
 * });
 * console.assert(note.startsWith("<sandbox>") && note.includes("/w"));
 * ```
 */
export function sandboxPromptNote(profile: SandboxProfile): string {
  const extra = [...profile.readOnly, ...profile.readWrite];
  return `<sandbox>
Your commands run in a sandbox. They read and write the workspace ${profile.workspace}${
    extra.length > 0 ? ` and reach ${extra.join(", ")}` : ""
  }, and read the system directories. $TMPDIR and $HOME are private and empty at each command's
start; every other path, the user's files and Bub's own do not exist there. The network is ${
    networkNote(profile.network)
  }. Background jobs end with their command. A permission error or a missing path outside the
workspace comes from the sandbox: do not retry it, tell the user what you need instead.
</sandbox>
`;
}
