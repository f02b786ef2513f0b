/**
 * The `bub` command starts again without its secrets in its start-up environment (Linux).
 *
 * Why: `/proc/<pid>/environ` shows the environment a process was started with to every process
 * of the same user (and to root), and `setenv` / `delete process.env.X` do not change it. A
 * command run by a tool could read `BUB_API_KEY` or `BUB_TELEGRAM_TOKEN` there and hand it to the
 * model. So when the start-up environment holds a secret-named variable (`BUB_*KEY*`,
 * `BUB_*TOKEN*`, `BUB_*SECRET*`, any `*_API_KEY`), the `bub` entry, before it loads anything
 * else, writes those variables to a private file, and replaces its own process image
 * (`execve("/proc/self/exe", <same argv from /proc/self/cmdline>, <env without them>)`). The pid,
 * the parent, the terminal and the command line stay the same. The new image finds the file named
 * in `BUB_ENV_HANDOFF` (which also keeps it from starting again), unlinks it, reads it and puts the
 * values back into `process.env`, so settings and provider clients read them as before; values
 * set at run time are not in `/proc/<pid>/environ`. No other Bub process holds them: tool and MCP
 * processes start with a scrubbed environment.
 *
 * Why a file and not a pipe: a pipe must reach the new image as an inherited descriptor, and Node
 * opens every descriptor close-on-exec and keeps only 0-2 across `process.execve`. The file is
 * created 0600 with `O_EXCL | O_NOFOLLOW` under a random name in a private (0700) folder on a
 * memory file system where there is one (`$XDG_RUNTIME_DIR/bub`, `/dev/shm/bub-<uid>`, else
 * `<tmpdir>/bub-<uid>`), and it exists only for the few milliseconds of the `execve`, before any
 * plugin, channel or tool can run; a file left by a start killed in between is removed by the next
 * start (its pid is dead). Another process of the same user watching that folder could copy it in
 * those milliseconds; such a process can read `config.yml` as well (that is the sandbox's job).
 *
 * Where it does nothing: outside Linux (no `/proc/self/exe`; on macOS `ps eww` still shows a
 * process's environment to the same user: keep keys in `config.yml` there), with `BUB_KEEP_ENV=1`
 * (an environment variable only, since the decision comes before any file is read), and where
 * `execve` cannot be reached (Node < 22.15, Deno without `-A`): then it prints one
 * warning naming the variables. Launchers that stay running as Bub's parent (`npx`, `npm run`,
 * `deno task`, a shell script without `exec`) keep their own copy of the environment, which Bub
 * cannot change: after starting again it looks for its keys in the start-up environment of every
 * process it runs under and prints one warning naming those processes (start `bub` directly, or
 * through `exec`). The `bub` routes of this package start no such process: the npm `bin` is run
 * by `env node`, `deno install` writes a script that `exec`s `deno run`.
 *
 * What it does not do: the keys are still in the process's memory, which a process of the same
 * user may read through `/proc/<pid>/mem` or ptrace where the kernel allows it (root; or no Yama
 * `ptrace_scope` restriction); and an unsandboxed command can read `config.yml` and `./.env`.
 *
 * @module
 */
import process from "node:process";
import { readFileSync, unlinkSync } from "node:fs";
import {
  exposedSecretsWarning,
  KEEP_ENV,
  keepEnvRequested,
  noteEnvSecretsWarned,
  startEnvSecrets,
} from "../_internal/env_secrets.ts";
import { isSecretEnvName } from "../_internal/redact.ts";
import { runtimeExecve } from "./_execve.ts";
import { ancestorsHolding, launcherWarning } from "./_launcher_check.ts";
import {
  HANDOFF_ENV,
  handoffDir,
  removeStaleHandoffs,
  takeHandoff,
  writeHandoff,
} from "./_handoff_file.ts";

/** Options of {@link handOffEnvSecrets}. */
export interface HandoffOptions {
  /** Writes a warning or error line. Default: standard error. */
  stderr?: (text: string) => void;
}

/** The outcome of the first call in this process (later calls return it). */
let outcome: Promise<boolean> | null = null;

/**
 * Makes sure no secret-named variable stays in this process's start-up environment: starts the
 * process again without them (this call then does not return) or, in the new image, takes them
 * back from the handoff file into `process.env`. Call it first thing in a program's entry; it
 * does its work once per process.
 *
 * Returns false when the new image could not take the secrets back (it has printed why; exit
 * with 1), else true, also when it did nothing or could not start again (it has printed a
 * warning naming the variables).
 *
 * @example
 * ```ts ignore
 * import { handOffEnvSecrets } from "./secret_handoff.ts";
 * if (!(await handOffEnvSecrets())) process.exit(1);
 * ```
 */
export function handOffEnvSecrets(options: HandoffOptions = {}): Promise<boolean> {
  outcome ??= handOff(options.stderr ?? ((text) => void process.stderr.write(text)));
  return outcome;
}

async function handOff(stderr: (text: string) => void): Promise<boolean> {
  const env = process.env;
  const path = env[HANDOFF_ENV];
  if (path !== undefined) {
    delete env[HANDOFF_ENV];
    let secrets: Record<string, string>;
    try {
      secrets = takeHandoff(path);
    } catch (error) {
      stderr(
        `bub: cannot take back the keys after starting again without them (${HANDOFF_ENV}=${path}): ` +
          `${(error as Error).message}\n`,
      );
      return false;
    }
    for (const [name, value] of Object.entries(secrets)) env[name] = value;
    const warning = launcherWarning(ancestorsHolding(secrets));
    if (warning !== null) stderr(warning);
    return true;
  }
  if (process.platform !== "linux" || keepEnvRequested(env[KEEP_ENV])) return true;
  const exposed = [...startEnvSecrets().keys()];
  if (exposed.length === 0) return true;
  const warn = (reason: string): boolean => {
    const [them, keys] = exposed.length === 1 ? ["it", "the key"] : ["them", "the keys"];
    const remedy = `bub could not start again without ${them}: ${reason}. Put ${keys} in ` +
      "config.yml or ./.env instead.";
    stderr(`bub: warning: ${exposedSecretsWarning(exposed, remedy)}\n`);
    noteEnvSecretsWarned();
    return true;
  };
  const execve = await runtimeExecve();
  if (!execve.ok) return warn(execve.reason);
  let argv: string[];
  let file: string;
  try {
    argv = commandLine();
    const dir = handoffDir(env);
    removeStaleHandoffs(dir);
    const secrets: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) {
      if (value !== undefined && isSecretEnvName(name)) secrets[name] = value;
    }
    file = writeHandoff(dir, secrets);
  } catch (error) {
    return warn((error as Error).message);
  }
  const next: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretEnvName(name)) next[name] = value;
  }
  next[HANDOFF_ENV] = file;
  const error = execve.execve("/proc/self/exe", argv, next);
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
  return warn(`execve: ${error.message}`);
}

/** This process's arguments as it was started (`argv[0]` included), from `/proc/self/cmdline`. */
function commandLine(): string[] {
  const parts = readFileSync("/proc/self/cmdline", "utf8").split("\0");
  if (parts.at(-1) === "") parts.pop();
  if (parts.length === 0) throw new Error("/proc/self/cmdline is empty");
  return parts;
}
