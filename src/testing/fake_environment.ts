/**
 * A fake execution environment for tests: files live in memory and commands answer from a
 * script instead of running.
 *
 * @module
 */
import { Environment, Process, type SpawnOptions } from "../kernel/environment.ts";

/**
 * What a scripted command prints and returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeEnvironment, type FakeCommandResult } from "@bub/core/testing";
 * const result: FakeCommandResult = { stdout: "main\n", exitCode: 0 };
 * const env = new FakeEnvironment("/workspace", { commands: { "git branch --show-current": result } });
 * const process = await env.spawn("git branch --show-current");
 * assert.equal(await new Response(process.stdout).text(), "main\n");
 * ```
 */
export interface FakeCommandResult {
  /** Standard output. Default `""`. */
  stdout?: string;
  /** Standard error. Default `""`. */
  stderr?: string;
  /** The exit code. Default 0. */
  exitCode?: number;
}

/**
 * Answers a command: a fixed result, or a function of the command line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type FakeCommandHandler, FakeEnvironment } from "@bub/core/testing";
 * const echo: FakeCommandHandler = (command) => ({ stdout: command.replace(/^echo /, "") });
 * const env = new FakeEnvironment("/workspace", { fallback: echo });
 * assert.equal(await new Response((await env.spawn("echo hi")).stdout).text(), "hi");
 * ```
 */
export type FakeCommandHandler =
  | FakeCommandResult
  | ((command: string, options: SpawnOptions) => FakeCommandResult | Promise<FakeCommandResult>);

/**
 * One recorded `spawn`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeEnvironment, type FakeSpawn } from "@bub/core/testing";
 * const env = new FakeEnvironment("/workspace", { fallback: { exitCode: 0 } });
 * await env.spawn("make test", { cwd: "/workspace/app" });
 * const [spawn]: FakeSpawn[] = env.spawns;
 * assert.equal(spawn?.cwd, "/workspace/app");
 * ```
 */
export interface FakeSpawn {
  /** The command as a string (arrays joined by spaces). */
  readonly command: string;
  /** The working directory used. */
  readonly cwd: string | null;
  /** Extra variables. */
  readonly env: Record<string, string> | null;
}

function textStream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

class FakeProcess extends Process {
  readonly pid: number | null = null;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly returncode: number;
  readonly stdin: Uint8Array[] = [];

  constructor(result: FakeCommandResult) {
    super();
    this.stdout = textStream(result.stdout ?? "");
    this.stderr = textStream(result.stderr ?? "");
    this.returncode = result.exitCode ?? 0;
  }

  wait(): Promise<number> {
    return Promise.resolve(this.returncode);
  }

  writeStdin(data: Uint8Array): Promise<void> {
    this.stdin.push(data);
    return Promise.resolve();
  }

  closeStdin(): void {}

  signal(_opts: { kill: boolean }): void {}
}

/**
 * An {@link Environment} whose files are a `Map` and whose commands are scripted by exact command
 * line (or by a fallback handler); every spawn is recorded in {@link FakeEnvironment.spawns}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeEnvironment } from "@bub/core/testing";
 * const env = new FakeEnvironment("/work", { commands: { "git status": { stdout: "clean\n" } } });
 * await env.writeText("notes.txt", "hi");
 * assert.ok((await env.readText("/work/notes.txt")) === "hi");
 * const process = await env.spawn("git status");
 * assert.ok((await process.wait()) === 0 && env.spawns.length === 1);
 * ```
 */
export class FakeEnvironment extends Environment {
  /** Files by absolute path. */
  readonly files: Map<string, string> = new Map();
  /** Every spawn, in order. */
  readonly spawns: FakeSpawn[] = [];
  /** True once closed. */
  closed = false;
  #commands: Map<string, FakeCommandHandler>;
  #fallback: FakeCommandHandler;

  /**
   * Creates an environment rooted at `workspace`.
   *
   * @param workspace the default working directory
   * @param options scripted commands (by exact command line) and the answer for all others
   */
  constructor(
    workspace: string | null = "/workspace",
    options: { commands?: Record<string, FakeCommandHandler>; fallback?: FakeCommandHandler } = {},
  ) {
    super(workspace);
    this.#commands = new Map(Object.entries(options.commands ?? {}));
    this.#fallback = options.fallback ??
      ((command) => ({ stderr: `${command.split(" ")[0]}: command not found\n`, exitCode: 127 }));
  }

  /** Scripts `command` from now on. */
  script(command: string, handler: FakeCommandHandler): void {
    this.#commands.set(command, handler);
  }

  /** Records the spawn and answers it from the script. */
  async spawn(command: string | string[], options: SpawnOptions = {}): Promise<Process> {
    const line = Array.isArray(command) ? command.join(" ") : command;
    this.spawns.push({
      command: line,
      cwd: options.cwd ?? this.workspace,
      env: options.env ?? null,
    });
    const handler = this.#commands.get(line) ?? this.#fallback;
    const result = typeof handler === "function" ? await handler(line, options) : handler;
    return new FakeProcess(result);
  }

  /** The file's text; a missing file throws an ENOENT-like error. */
  readText(path: string): Promise<string> {
    const resolved = this.resolvePath(path);
    const text = this.files.get(resolved);
    if (text === undefined) {
      return Promise.reject(
        Object.assign(new Error(`ENOENT: no such file or directory, open '${resolved}'`), {
          code: "ENOENT",
        }),
      );
    }
    return Promise.resolve(text);
  }

  /** Stores the file's text. */
  writeText(path: string, content: string): Promise<void> {
    this.files.set(this.resolvePath(path), content);
    return Promise.resolve();
  }

  /** Marks the environment closed. */
  override close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
