/**
 * The macOS side of a {@link SandboxProfile}: the Seatbelt (SBPL) profile that `sandbox-exec -p`
 * enforces, and the `ulimit` line of its limits. A pure function of the profile, so it is tested
 * on every host; the driver that runs it is `seatbelt_driver.ts`.
 *
 * Seatbelt cannot remount anything, so where bubblewrap shows only what it binds, this profile
 * denies by default, then (the last matching rule wins): allows reading the system folders;
 * denies the user's home and every hidden path (Bub's home); allows reading the workspace, the
 * extra paths and the command's own scratch folder (its `TMPDIR` and `HOME`, made by the driver),
 * even inside the home, and writing the workspace, the read-write extra paths and the scratch;
 * then denies again the hidden paths inside those. The folders above a shown path expose their
 * metadata only. Processes may signal and inspect only processes of the same sandbox. The network
 * is `(allow network*)` for `on`, nothing for `off`, and for an allowlist only the egress proxy's
 * port on 127.0.0.1.
 *
 * Rules match real paths (`/tmp` is `/private/tmp` there): every path is resolved first. The last
 * matching rule wins.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { SandboxLimits, SandboxProfile } from "./sandbox_profile.ts";

/** The executable that applies a profile; the probe looks for it. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/**
 * The system folders a command reads (never writes): the OS, its libraries and frameworks,
 * command-line tools, Homebrew (`/opt`, `/usr/local`), `/etc`'s real folder, and the few files
 * of `/private/var` that libc and the time zone code read.
 */
export const SEATBELT_SYSTEM_PATHS: readonly string[] = [
  "/System",
  "/usr",
  "/bin",
  "/sbin",
  "/Library",
  "/opt",
  "/private/etc",
  "/private/var/db/timezone",
  "/private/var/db/dyld",
  "/private/var/select",
  "/Applications/Xcode.app",
];

/** What the driver adds for one command. */
export interface SeatbeltCommand {
  /** The command's scratch folder (its `TMPDIR` and `HOME`), read-write, removed after it. */
  scratch: string;
  /** The egress proxy's TCP port on 127.0.0.1 (an allowlist network), else null. */
  proxyPort: number | null;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent === "/" ? "/" : `${parent}/`);
}

/** An SBPL string literal. */
function quoted(text: string): string {
  return JSON.stringify(text);
}

function rule(action: "allow" | "deny", operations: string, filters: readonly string[]): string[] {
  if (filters.length === 0) return [];
  return [`(${action} ${operations}`, ...filters.map((filter) => `  ${filter}`), ")"];
}

const subpath = (path: string) => `(subpath ${quoted(path)})`;
const literal = (path: string) => `(literal ${quoted(path)})`;

/**
 * The SBPL profile of `profile` for one command (`command`: its scratch folder and proxy port).
 *
 * @example
 * ```ts
 * import { DEFAULT_SANDBOX_LIMITS } from "./sandbox_profile.ts";
 * import { seatbeltProfile } from "./seatbelt_profile.ts";
 * const sbpl = seatbeltProfile({
 *   workspace: "/Users/me/project", network: "off", readOnly: [], readWrite: [],
 *   hidden: ["/Users/me/.bub"], home: "/Users/me", limits: DEFAULT_SANDBOX_LIMITS,
 * }, { scratch: "/private/var/folders/x/T/bub-cmd-1", proxyPort: null });
 * console.assert(sbpl.startsWith("(version 1)") && !sbpl.includes("network*"));
 * ```
 */
export function seatbeltProfile(profile: SandboxProfile, command: SeatbeltCommand): string {
  const workspace = real(profile.workspace);
  const scratch = real(command.scratch);
  const readOnly = profile.readOnly.map(real);
  const readWrite = profile.readWrite.map(real);
  // As with bubblewrap, a hidden path that is the workspace itself does not hide it.
  const hidden = profile.hidden.filter((path) => isAbsolute(path)).map(real)
    .filter((path) => path !== workspace);
  const home = profile.home !== null && isAbsolute(profile.home) ? real(profile.home) : null;
  /** What the command may see even inside the home or a hidden folder. */
  const shown = [workspace, ...readOnly, ...readWrite, scratch];
  const writable = [workspace, ...readWrite, scratch];
  /** The folders above a shown path: their own metadata only, so `realpath` can walk down. */
  const above = new Set<string>();
  for (const path of shown) {
    for (let dir = dirname(path); dir !== "/" && !above.has(dir); dir = dirname(dir)) {
      above.add(dir);
    }
  }
  const lines = [
    "(version 1)",
    "(deny default)",
    "",
    "; Processes: start any program; see, signal and trace only this sandbox's own",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow process-info* (target same-sandbox))",
    "(allow signal (target same-sandbox))",
    "(allow mach-priv-task-port (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow ipc-posix-shm)",
    "(allow ipc-posix-sem)",
    "(allow mach-lookup",
    '  (global-name "com.apple.system.logger")',
    '  (global-name "com.apple.system.notification_center")',
    '  (global-name "com.apple.system.opendirectoryd.libinfo")',
    '  (global-name "com.apple.system.opendirectoryd.membership")',
    '  (global-name "com.apple.bsd.dirhelper")',
    '  (global-name "com.apple.SecurityServer")',
    '  (global-name "com.apple.trustd.agent")',
    ")",
    "",
    "; Files: the system read-only, the devices a shell needs",
    '(allow file-read* (literal "/"))',
    ...rule("allow", "file-read*", [
      ...SEATBELT_SYSTEM_PATHS.map(subpath),
      ...["/etc", "/tmp", "/var", "/private", "/private/var"].map(literal),
    ]),
    ...rule("allow", "file-read* file-write-data file-ioctl", [
      ...["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty"].map(literal),
      '(regex #"^/dev/fd/")',
    ]),
    "",
    "; Hidden: the home and Bub's own (config, tapes, logs)",
    ...rule("deny", "file-read* file-write*", [...(home ? [home] : []), ...hidden].map(subpath)),
    "",
    "; Shown: the workspace, the extra paths and the command's scratch (TMPDIR, HOME)",
    ...rule("allow", "file-read-metadata", [...above].sort().map(literal)),
    ...rule("allow", "file-read*", shown.map(subpath)),
    ...rule("allow", "file-write*", writable.map(subpath)),
    ...rule(
      "deny",
      "file-read* file-write*",
      hidden.filter((path) => shown.some((s) => path !== s && isInside(path, s))).map(subpath),
    ),
    "",
    "; Network",
    ...networkRules(profile, command),
    "",
  ];
  return lines.join("\n");
}

function networkRules(profile: SandboxProfile, command: SeatbeltCommand): string[] {
  if (profile.network === "on") return ["(allow network*)"];
  if (profile.network === "off" || command.proxyPort === null) return ["; off"];
  return [
    "; only the egress proxy, which reaches the allowlisted hosts",
    `(allow network-outbound (remote ip ${quoted(`localhost:${command.proxyPort}`)}))`,
  ];
}

/**
 * The `bash` line that sets `limits` before the command starts (`ulimit`, 1024-byte blocks for
 * the file size): CPU seconds and file size. Memory and processes are left to the host: macOS
 * does not enforce an address-space limit, and its process limit counts every process of the
 * user (a desktop has hundreds), not the sandbox's.
 *
 * @example
 * ```ts
 * import { seatbeltLimits } from "./seatbelt_profile.ts";
 * const line = seatbeltLimits({ cpuSeconds: 60, memoryBytes: null, processes: 64, fileBytes: 2048 });
 * console.assert(line === "ulimit -t 60 -f 2");
 * ```
 */
export function seatbeltLimits(limits: SandboxLimits): string {
  const options: string[] = [];
  if (limits.cpuSeconds !== null) options.push(`-t ${Math.ceil(limits.cpuSeconds)}`);
  if (limits.fileBytes !== null) {
    options.push(`-f ${Math.max(1, Math.floor(limits.fileBytes / 1024))}`);
  }
  return options.length === 0 ? "" : `ulimit ${options.join(" ")}`;
}
