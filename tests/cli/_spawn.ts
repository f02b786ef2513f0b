/**
 * Spawning the real `bub` CLI (or an example script) as a child process of the current runtime,
 * with a throwaway `HOME`, `BUB_HOME` and workspace so tests never touch the real home.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The `bub` executable. */
export const BIN: string = join(ROOT, "src", "cli", "bin.ts");

const isDeno = "Deno" in globalThis;

/**
 * Node's compile cache for every child (Deno and Bun ignore it): Node 24 strips the types of and
 * compiles each of bub's modules at every start; the suite starts `bub` hundreds of times.
 * Content-hashed, so one folder serves every run and every version of the sources.
 */
const NODE_COMPILE_CACHE = join(tmpdir(), "bub-test-node-compile-cache");

/** The command line running `script` with `args` on the current runtime. */
export function runtimeCommand(script: string, args: readonly string[] = []): string[] {
  return isDeno
    ? [process.execPath, "run", "-A", script, ...args]
    : [process.execPath, script, ...args];
}

/** Throwaway directories of one test: a home, `BUB_HOME` (holding `config.yml`) and a workspace. */
export interface TempDirs {
  /** Used as `HOME`. */
  home: string;
  /** Used as `BUB_HOME`. */
  bubHome: string;
  /** The child's working directory. */
  workspace: string;
  /** Used as `TMPDIR`. */
  tmp: string;
  /** `<BUB_HOME>/config.yml`, the config file the CLI reads. */
  configFile: string;
  /** Writes the config file. */
  writeConfig(text: string): void;
  /** Deletes everything. */
  remove(): void;
}

/** Creates {@link TempDirs}; remove them in `t.after`. */
export function tempDirs(prefix = "bub-cli-test-"): TempDirs {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const dirs = {
    home: join(root, "home"),
    bubHome: join(root, "bub-home"),
    workspace: join(root, "workspace"),
    tmp: join(root, "tmp"),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const configFile = join(dirs.bubHome, "config.yml");
  return {
    ...dirs,
    configFile,
    writeConfig(text) {
      mkdirSync(dirname(configFile), { recursive: true });
      writeFileSync(configFile, text);
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The child's environment: the parent's minus every `BUB_*`, `HOME`/`BUB_HOME` pointing at the
 * temp dirs, Deno's own cache kept, and `env` on top (an `undefined` value removes a variable).
 */
export function childEnv(
  dirs: TempDirs,
  env: Record<string, string | undefined> = {},
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith("BUB_") || /^(OPENAI|ANTHROPIC)_/.test(name)) {
      continue;
    }
    result[name] = value;
  }
  // Deno keeps its transpile cache under HOME: keep using the real one.
  if (isDeno && !result.DENO_DIR) result.DENO_DIR = join(homedir(), ".cache", "deno");
  result.NODE_COMPILE_CACHE ??= NODE_COMPILE_CACHE;
  result.HOME = dirs.home;
  result.BUB_HOME = dirs.bubHome;
  result.TMPDIR = dirs.tmp;
  result.NO_COLOR = "1";
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete result[name];
    else result[name] = value;
  }
  return result;
}

/** A running child with its collected output. */
export interface Child extends AsyncDisposable {
  /** The process. */
  readonly process: ChildProcess;
  /** Standard output so far. */
  readonly stdout: string;
  /** Standard error so far. */
  readonly stderr: string;
  /** Writes to standard input. */
  write(text: string): void;
  /** Closes standard input. */
  end(): void;
  /** Resolves once stdout (or stderr with `stream: "stderr"`) contains `needle`. */
  waitFor(
    needle: string | RegExp,
    options?: { stream?: "stdout" | "stderr"; timeoutMs?: number },
  ): Promise<void>;
  /** Resolves with the exit code (rejects after `timeoutMs`, killing the child). */
  exited(timeoutMs?: number): Promise<number | null>;
  /** Kills the child (SIGKILL) unless it already exited. */
  kill(): void;
}

/** Options of {@link startChild}. */
export interface StartOptions {
  /** The working directory. */
  cwd: string;
  /** The full environment. */
  env: Record<string, string>;
}

/** Spawns `command` with piped stdio. Dispose (or `kill`) it in `t.after`. */
export function startChild(command: readonly string[], options: StartOptions): Child {
  const [file, ...args] = command;
  const child = spawn(file!, args, { cwd: options.cwd, env: options.env, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    stdout += chunk;
    wake();
  });
  child.stderr!.on("data", (chunk: string) => {
    stderr += chunk;
    wake();
  });
  child.stdin!.on("error", () => {});
  let exitCode: number | null | undefined;
  const exit = new Promise<number | null>((resolve) => {
    child.on("close", (code) => {
      exitCode = code;
      wake();
      resolve(code);
    });
    child.on("error", () => {
      exitCode = null;
      resolve(null);
    });
  });
  const kill = () => {
    if (exitCode === undefined) child.kill("SIGKILL");
  };
  const describe = () => `\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  return {
    process: child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    write(text) {
      child.stdin!.write(text);
    },
    end() {
      child.stdin!.end();
    },
    waitFor(needle, waitOptions = {}) {
      const read = () => (waitOptions.stream === "stderr" ? stderr : stdout);
      const found =
        () => (typeof needle === "string" ? read().includes(needle) : needle.test(read()));
      return new Promise((resolve, reject) => {
        const check = () => {
          if (found()) {
            finish();
            resolve();
          } else if (exitCode !== undefined) {
            finish();
            reject(
              new Error(
                `Child exited (${exitCode}) before printing ${String(needle)}${describe()}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`Timed out waiting for ${String(needle)}${describe()}`));
        }, waitOptions.timeoutMs ?? 15_000);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    exited(timeoutMs = 15_000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          kill();
          reject(new Error(`Child did not exit within ${timeoutMs} ms${describe()}`));
        }, timeoutMs);
      });
      return Promise.race([exit, timeout]).finally(() => clearTimeout(timer));
    },
    kill,
    async [Symbol.asyncDispose]() {
      kill();
      await exit;
    },
  };
}

/** The result of {@link runCli}. */
export interface CliResult {
  /** The exit code. */
  code: number | null;
  /** Everything written to stdout. */
  stdout: string;
  /** Everything written to stderr. */
  stderr: string;
}

/** Runs `bub <args>` to completion with `input` on stdin. */
export async function runCli(
  dirs: TempDirs,
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return await runScript(BIN, dirs, args, options);
}

/** Runs `script <args>` to completion with `input` on stdin. */
export async function runScript(
  script: string,
  dirs: TempDirs,
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  await using child = startChild(runtimeCommand(script, args), {
    cwd: dirs.workspace,
    env: childEnv(dirs, options.env),
  });
  if (options.input !== undefined) child.write(options.input);
  child.end();
  const code = await child.exited(options.timeoutMs);
  return { code, stdout: child.stdout, stderr: child.stderr };
}

/** Cleanups run after each test (register `afterEach(() => cleanup.run())` in the `describe`). */
export interface Cleanup {
  /** Runs `fn` after the current test, last registered first. */
  defer(fn: () => unknown): void;
  /** Runs and forgets the registered cleanups. */
  run(): Promise<void>;
}

/**
 * A {@link Cleanup} stack. (Deno's `node:test` does not run `t.after` callbacks of tests inside a
 * `describe`, so tests register their cleanups here instead.)
 */
export function cleanupStack(): Cleanup {
  const stack: (() => unknown)[] = [];
  return {
    defer(fn) {
      stack.push(fn);
    },
    async run() {
      while (stack.length > 0) await stack.pop()!();
    },
  };
}
