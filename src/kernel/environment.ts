/**
 * The execution-environment contract: where tools start processes and touch files.
 *
 * Plugins provide one {@link Environment} per session through the `provideEnvironment` hook; the
 * builtin plugin provides a host environment. Paths given to an environment are paths inside it.
 *
 * @module
 */
import { posix } from "node:path";

/**
 * Options of {@link Environment.spawn}.
 *
 * @example
 * ```ts
 * import { LocalEnvironment, type SpawnOptions } from "@bub/core";
 * const options: SpawnOptions = { cwd: "/tmp", env: { LANG: "C" }, signal: AbortSignal.timeout(5_000) };
 * const process = await new LocalEnvironment().spawn("pwd", options);
 * await process.wait();
 * ```
 */
export interface SpawnOptions {
  /** Working directory inside the environment; defaults to the environment's workspace. */
  cwd?: string | null;
  /** Variables added to the environment's default variables. */
  env?: Record<string, string> | null;
  /** Aborting kills the process (and its group). */
  signal?: AbortSignal;
}

/**
 * A process started by an {@link Environment}.
 *
 * `signal` stops (TERM) or kills (KILL) the process and its descendants and never throws when they
 * already exited.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment } from "@bub/core";
 * const env = new LocalEnvironment();
 * const process = await env.spawn("echo hello");
 * const text = await new Response(process.stdout).text();
 * assert.equal(await process.wait(), 0);
 * assert.equal(text, "hello\n");
 * assert.equal(process.isRunning(), false);
 * await env.close();
 * ```
 */
export abstract class Process {
  /** The process id, or null when the environment has none. */
  abstract readonly pid: number | null;
  /** Standard output. */
  abstract readonly stdout: ReadableStream<Uint8Array>;
  /** Standard error. */
  abstract readonly stderr: ReadableStream<Uint8Array>;
  /** The exit code, null while running. */
  abstract readonly returncode: number | null;
  /** Waits for the exit code. */
  abstract wait(): Promise<number>;
  /** Writes to standard input and waits until it is flushed. */
  abstract writeStdin(data: Uint8Array): Promise<void>;
  /** Closes standard input. */
  abstract closeStdin(): void;
  /** Sends TERM, or KILL with `{ kill: true }`, to the process and its descendants. */
  abstract signal(opts: { kill: boolean }): void;
  /** True while the process (implementations may include its descendants) runs. */
  isRunning(): boolean {
    return this.returncode === null;
  }
}

/**
 * Where tools run: start processes, read and write text files, resolve paths.
 *
 * @example A minimal in-memory environment
 * ```ts
 * import assert from "node:assert/strict";
 * import { Environment, type Process } from "@bub/core";
 * class Memory extends Environment {
 *   files = new Map<string, string>();
 *   spawn(): Promise<Process> { throw new Error("no processes here"); }
 *   readText(path: string): Promise<string> { return Promise.resolve(this.files.get(this.resolvePath(path)) ?? ""); }
 *   async writeText(path: string, content: string): Promise<void> { this.files.set(this.resolvePath(path), content); }
 * }
 * const env = new Memory("/srv");
 * await env.writeText("a.txt", "hi");
 * assert.ok((await env.readText("/srv/a.txt")) === "hi");
 * ```
 */
export abstract class Environment {
  /** The default working directory inside the environment, or null. */
  workspace: string | null;
  /** The Python executable inside the environment. */
  python: string = "python3";

  /**
   * Creates the object.
   *
   * @param workspace the default working directory inside the environment
   */
  constructor(workspace: string | null = null) {
    this.workspace = workspace;
  }

  /** Starts `command`: a string runs through the shell, an array runs directly. */
  abstract spawn(command: string | string[], opts?: SpawnOptions): Promise<Process>;
  /** Reads a UTF-8 text file. */
  abstract readText(path: string): Promise<string>;
  /** Writes a UTF-8 text file, creating missing parent directories. */
  abstract writeText(path: string, content: string): Promise<void>;

  /**
   * POSIX resolution: absolute paths unchanged; relative paths joined to the workspace and
   * normalized; a relative path without a workspace throws.
   */
  resolvePath(path: string): string {
    return resolveInWorkspace(this.workspace, path);
  }

  /** Releases resources; called when `running()` exits. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Same as {@link Environment.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * The default path resolution of {@link Environment.resolvePath}, as a pure string operation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveInWorkspace } from "@bub/core/kernel";
 * assert.ok(resolveInWorkspace("/srv/work", "a/../b.txt") === "/srv/work/b.txt");
 * ```
 */
export function resolveInWorkspace(workspace: string | null, path: string): string {
  if (posix.isAbsolute(path)) return path;
  if (workspace === null || workspace === undefined) {
    throw new Error(`relative path '${path}' is not allowed without a workspace`);
  }
  return posix.normalize(posix.join(workspace, path));
}
