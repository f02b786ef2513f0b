/**
 * Shared helpers of the sandbox tests: a throwaway host layout with planted secrets (a home with
 * `~/.ssh`, Bub's home with a config and a tape, a workspace inside the home, another workspace,
 * a directory outside), the sandboxed environment over it, and a runner that collects output.
 *
 * @module
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:net";
import { probeSandbox } from "../../../src/environment/sandbox_probe.ts";
import { sandboxBackend } from "../../../src/environment/sandbox_backend.ts";
import {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxProfile,
} from "../../../src/environment/sandbox_profile.ts";
import { SandboxedEnvironment } from "../../../src/environment/sandboxed_environment.ts";
import { removeTree } from "../../_helpers/remove_tree.ts";
import type { Environment } from "../../../src/kernel/environment.ts";

/**
 * Why the sandbox suites are skipped here, or false when `bwrap` runs (probed once). They test
 * bubblewrap; macOS's Seatbelt has its own suite (`sandbox_seatbelt.test.ts`).
 */
export const SKIP: string | false = await (async () => {
  if (sandboxBackend() === "seatbelt") {
    return "these suites test bubblewrap (Linux); Seatbelt's is sandbox_seatbelt.test.ts";
  }
  const probe = await probeSandbox();
  return probe.ok ? false : `the sandbox cannot run on this host: ${probe.reason}`;
})();

/** The planted secrets: none of them may ever appear in a sandboxed command's output. */
export const PLANTED = {
  sshKey: "PLANTED-SSH-PRIVATE-KEY-7f3a",
  config: "PLANTED-CONFIG-api_key-91c2",
  tape: "PLANTED-TAPE-ENTRY-5d0e",
  bashrc: "PLANTED-BASHRC-33aa",
  other: "PLANTED-OTHER-WORKSPACE-c81b",
  outside: "PLANTED-OUTSIDE-0b9d",
};

/** A throwaway host layout. */
export interface Layout {
  /** The temp root holding everything. */
  root: string;
  /** Stands for `$HOME`: `.ssh/id_ed25519`, `.bashrc`, and the workspaces below. */
  home: string;
  /** `BUB_HOME`: `config.yml`, `tapes/`. */
  bubHome: string;
  /** The session's workspace (inside the home). */
  workspace: string;
  /** Another session's workspace (inside the home). */
  otherWorkspace: string;
  /** A directory outside the home. */
  outside: string;
  /** Removes everything. */
  remove(): void;
}

/** Creates a {@link Layout} with the {@link PLANTED} secrets in place. */
export function layout(): Layout {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "bub-sandbox-")));
  const home = join(root, "home");
  const bubHome = join(home, ".bub");
  const workspace = join(home, "project");
  const otherWorkspace = join(home, "other-project");
  const outside = join(root, "outside");
  for (const dir of [join(home, ".ssh"), join(bubHome, "tapes"), workspace, otherWorkspace]) {
    mkdirSync(dir, { recursive: true });
  }
  mkdirSync(outside);
  writeFileSync(join(home, ".ssh", "id_ed25519"), PLANTED.sshKey, { mode: 0o600 });
  writeFileSync(join(home, ".bashrc"), PLANTED.bashrc);
  writeFileSync(join(bubHome, "config.yml"), `api_key: ${PLANTED.config}\n`);
  writeFileSync(join(bubHome, "tapes", "web__x.jsonl"), `{"payload":"${PLANTED.tape}"}\n`);
  writeFileSync(join(otherWorkspace, "notes.txt"), PLANTED.other);
  writeFileSync(join(outside, "data.txt"), PLANTED.outside);
  return {
    root,
    home,
    bubHome,
    workspace,
    otherWorkspace,
    outside,
    remove: () => removeTree(root),
  };
}

/** The profile of `dirs` (overrides on top). */
export function profileOf(dirs: Layout, overrides: Partial<SandboxProfile> = {}): SandboxProfile {
  return {
    workspace: dirs.workspace,
    network: "off",
    readOnly: [],
    readWrite: [],
    hidden: [dirs.bubHome],
    home: dirs.home,
    limits: DEFAULT_SANDBOX_LIMITS,
    ...overrides,
  };
}

/** A sandboxed environment over `dirs`. */
export function sandboxOf(
  dirs: Layout,
  overrides: Partial<SandboxProfile> = {},
): SandboxedEnvironment {
  return new SandboxedEnvironment(profileOf(dirs, overrides));
}

/** What a command printed and how it ended. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` in `env` and collects its output. */
export async function run(
  env: Environment,
  command: string,
  options: { signal?: AbortSignal } = {},
): Promise<RunResult> {
  const proc = await env.spawn(command, options);
  proc.closeStdin();
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.wait(),
  ]);
  return { code, stdout, stderr };
}

/** True when no planted secret occurs in `text`. */
export function leaksNothing(text: string): boolean {
  return Object.values(PLANTED).every((secret) => !text.includes(secret));
}

/** A TCP listener on 127.0.0.1 counting its connections. */
export interface Listener extends AsyncDisposable {
  port: number;
  connections: number;
}

/** Starts a {@link Listener} that answers `pong` to every connection. */
export async function listener(): Promise<Listener> {
  const state = { port: 0, connections: 0 };
  const server: Server = createServer((socket) => {
    state.connections++;
    socket.end("pong\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.port = (server.address() as { port: number }).port;
  return Object.assign(state, {
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The pids of this process's children that run `bwrap`. */
export function bwrapPids(): Set<number> {
  const pids = new Set<number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const file = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0")[0]!;
      if (parent === process.pid && file.endsWith("bwrap")) {
        pids.add(Number(name));
      }
    } catch { /* exited meanwhile */ }
  }
  return pids;
}

/** Host processes whose working directory is `dir` (what a sandbox of that workspace runs). */
export function processesIn(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) === dir) out.push(Number(name));
    } catch { /* exited meanwhile, or not ours to read */ }
  }
  return out;
}
