/**
 * {@link LocalEnvironment}: the builtin host environment. Processes start in their own process
 * group through the runtime's {@link ProcessDriver}; files are read and written on the host.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import process from "node:process";
import { expandHome } from "../_internal/home.ts";
import { Environment, type SpawnOptions } from "../kernel/environment.ts";
import { BubError } from "../kernel/errors.ts";
import { LocalProcess } from "./local_process.ts";
import { processDriver } from "./driver_select.ts";
import { findExecutable } from "../_internal/find_executable.ts";
import type { ProcessDriver } from "./process_driver.ts";

/**
 * Options of {@link LocalEnvironment}.
 *
 * @example
 * ```ts
 * import { LocalEnvironment, type LocalEnvironmentOptions } from "@bub/core/environment";
 * const options: LocalEnvironmentOptions = { shell: "/bin/sh", envPassthrough: ["PATH", "HOME"] };
 * await using env = new LocalEnvironment(".", options);
 * ```
 */
export interface LocalEnvironmentOptions {
  /** The process driver; defaults to the one probed for the running runtime. */
  driver?: ProcessDriver;
  /** The shell that runs string commands; defaults to `bash` on `PATH`, else `sh`. */
  shell?: string;
  /**
   * Secret-named variables (`BUB_*_KEY`, `BUB_*_TOKEN`, `BUB_*SECRET*`, `BUB_*PASSWORD*`,
   * `*_API_KEY`...: `isSecretEnvName`) that processes keep; every other one is removed. Default: the names in `BUB_TOOL_ENV_PASSTHROUGH`.
   */
  envPassthrough?: readonly string[] | null;
}

/**
 * The host environment: string commands run through `bash` (else `sh`) with `-c`, arrays run
 * directly; every process leads a new process group; `env` adds to the host's variables.
 *
 * @example Run a command and read its output
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment } from "./local_environment.ts";
 * await using env = new LocalEnvironment("/tmp");
 * const proc = await env.spawn("echo hi; pwd");
 * proc.closeStdin();
 * const text = await new Response(proc.stdout).text();
 * assert.ok(text === "hi\n/tmp\n" && (await proc.wait()) === 0);
 * ```
 */
export class LocalEnvironment extends Environment {
  #driver: ProcessDriver | null;
  #shell: string | null;
  #envPassthrough: readonly string[] | null;

  /**
   * Creates a host environment.
   *
   * @param workspace the default working directory (a host path), or null
   * @param options driver and shell overrides
   */
  constructor(workspace: string | null = null, options: LocalEnvironmentOptions = {}) {
    if (workspace !== null && typeof workspace !== "string") {
      throw new TypeError(
        `Cannot create LocalEnvironment: workspace must be a string or null, got ${typeof workspace}`,
      );
    }
    super(workspace);
    this.#driver = options.driver ?? null;
    this.#shell = options.shell ?? null;
    this.#envPassthrough = options.envPassthrough ?? null;
  }

  /** The driver processes start through. */
  get driver(): ProcessDriver {
    this.#driver ??= processDriver();
    return this.#driver;
  }

  /**
   * Starts `command` with piped stdio in a new process group. `cwd` defaults to the workspace
   * (else the host's current directory); a missing cwd or executable throws a `not_found`
   * {@link BubError}; `opts.signal` kills the group when aborted.
   */
  async spawn(command: string | string[], opts: SpawnOptions = {}): Promise<LocalProcess> {
    const argv = this.#argv(command);
    const cwd = opts.cwd || this.workspace || null;
    const env = opts.env && Object.keys(opts.env).length > 0 ? { ...opts.env } : null;
    opts.signal?.throwIfAborted();
    const [file, ...args] = argv as [string, ...string[]];
    let child;
    try {
      child = await this.driver.spawn({
        file,
        args,
        cwd,
        env,
        envPassthrough: this.#envPassthrough,
      });
    } catch (error) {
      // The directory is checked only now: a stat before every spawn cost ~0.3 ms a command.
      if (cwd !== null) await _checkDirectory(cwd);
      throw _spawnError(error, file, cwd);
    }
    const proc = new LocalProcess(child, this.driver);
    const signal = opts.signal;
    if (signal) {
      const abort = () => proc.signal({ kill: true });
      signal.addEventListener("abort", abort, { once: true });
      proc.wait().then(() => signal.removeEventListener("abort", abort));
      if (signal.aborted) abort();
    }
    return proc;
  }

  /** Reads a UTF-8 file at {@link LocalEnvironment.resolvePath}`(path)`. */
  readText(path: string): Promise<string> {
    return readFile(this.resolvePath(path), "utf8");
  }

  /** Writes a UTF-8 file at {@link LocalEnvironment.resolvePath}`(path)`, creating parents. */
  async writeText(path: string, content: string): Promise<void> {
    const target = this.resolvePath(path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, "utf8");
  }

  /**
   * Host resolution: `~` expands to the home directory; absolute paths are returned as given;
   * relative paths need a workspace and resolve to the real path of `workspace/path`
   * (symlinks and `..` resolved, missing tails kept).
   */
  override resolvePath(path: string): string {
    const expanded = expandHome(path);
    if (isAbsolute(expanded)) return expanded;
    if (this.workspace === null || this.workspace === undefined) {
      throw new Error(`relative path '${path}' is not allowed without a workspace`);
    }
    return _realpathLoose(resolve(expandHome(this.workspace), expanded));
  }

  #argv(command: string | string[]): string[] {
    if (typeof command === "string") return [this.#shell ??= _findShell(), "-c", command];
    if (!Array.isArray(command) || command.length === 0) {
      throw new TypeError(
        `Cannot spawn process: command must be a string or a non-empty array, got ${
          JSON.stringify(command)
        }`,
      );
    }
    return command.map(String);
  }
}

async function _checkDirectory(cwd: string): Promise<void> {
  let info;
  try {
    info = await stat(cwd);
  } catch {
    throw new BubError(
      "not_found",
      `Cannot spawn process: working directory "${cwd}" does not exist`,
      {
        cwd,
      },
    );
  }
  if (!info.isDirectory()) {
    throw new BubError(
      "invalid_input",
      `Cannot spawn process: working directory "${cwd}" is not a directory`,
      { cwd },
    );
  }
}

function _spawnError(error: unknown, file: string, cwd: string | null): Error {
  const { code, name } = error as { code?: unknown; name?: unknown };
  const details = { command: file, cwd, error: String(error) };
  if (code === "ENOENT" || name === "NotFound") {
    return new BubError(
      "not_found",
      `Cannot spawn process: command "${file}" was not found`,
      details,
      {
        cause: error,
      },
    );
  }
  if (code === "EACCES" || name === "PermissionDenied") {
    return new BubError(
      "invalid_input",
      `Cannot spawn process: command "${file}" is not executable`,
      details,
      { cause: error },
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** The shell found for a `PATH` value (the last lookup; it rarely changes). */
let foundShell: { path: string; shell: string } | null = null;

/**
 * `bash` on `PATH`, else `sh` on `PATH`, else `"sh"`. Remembered per `PATH` value across
 * environments: the builtin plugin creates one per session, and the lookup (a stat per `PATH`
 * entry) cost 0.6 ms on Node and 1.4 ms on Deno per session.
 */
function _findShell(): string {
  const path = process.env.PATH ?? "";
  if (foundShell?.path === path) return foundShell.shell;
  const shell = findExecutable("bash", { path }) ?? findExecutable("sh", { path }) ?? "sh";
  foundShell = { path, shell };
  return shell;
}

/** `realpath` of the longest existing prefix, with the missing rest appended. */
function _realpathLoose(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    return join(_realpathLoose(parent), basename(path));
  }
}
