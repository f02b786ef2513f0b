/**
 * {@link ShellManager}: the shell runtime behind the `bash`, `bash.output`, `bash.kill` and `quit`
 * tools, owned by the builtin `provideLifespan` hook.
 *
 * @module
 */
import type { Environment } from "../kernel/environment.ts";
import { BubError } from "../kernel/errors.ts";
import { join } from "node:path";
import { LocalEnvironment } from "./local_environment.ts";
import {
  checkOutputMaxBytes,
  DEFAULT_OUTPUT_MAX_BYTES,
  DEFAULT_SHELL_TIMINGS,
  type ShellTimings,
} from "./_shell_defaults.ts";
import type { ManagedShell } from "./managed_shell.ts";
import { SHELL_RUNTIME_CLOSED, ShellScope } from "./shell_scope.ts";
import type { ShellOutputOptions, ShellRunOptions, ShellStartOptions } from "./shell_options.ts";
import { lazyImport } from "../_internal/lazy.ts";
import { makeSpillDir, removeSpillFiles, removeStaleSpillDirs } from "./_spill_files.ts";

export { ShellCommandError } from "./shell_command_error.ts";

// The shell machinery is imported when the first shell starts (or a tool reads one), so that
// creating a manager (the builtin plugin does, at import of `@bub/core`) loads none of it.
const shellModules = lazyImport(() => import("./_shell_runtime.ts"));
export type { ShellOutputOptions, ShellRunOptions, ShellStartOptions } from "./shell_options.ts";

/**
 * Options of {@link ShellManager}.
 *
 * @example
 * ```ts
 * import { ShellManager, type ShellManagerOptions } from "@bub/core/environment";
 * const options: ShellManagerOptions = { outputMaxBytes: 1024 * 1024, spillDir: "/tmp/bub-spill" };
 * const shells = new ShellManager(options);
 * ```
 */
export interface ShellManagerOptions {
  /** Overrides of the termination timings (tests use short ones). */
  timings?: Partial<ShellTimings>;
  /**
   * Bytes of each shell's output kept in memory (head and tail; the rest streams to a spill
   * file), or a function read at each start (the builtin runtime passes the
   * `tool_output_max_bytes` setting). At least 1024. Default 4 MiB.
   */
  outputMaxBytes?: number | (() => number);
  /**
   * The folder of spill files; default a private `bub-output-<pid>-*` folder under the OS
   * tmpdir, removed when the last scope closes.
   */
  spillDir?: string;
}

/**
 * Starts, tracks and stops shells, each owned by the {@link ShellScope} current when it started.
 * The current scope is the most recently opened scope that is still open; once every scope this
 * manager opened has closed, starting a shell fails with `shell runtime is closed`. A manager that
 * never opened a scope starts unowned shells, which are never cleaned up automatically.
 *
 * @example Run commands inside a scope
 * ```ts
 * import assert from "node:assert/strict";
 * import { ShellManager } from "./shell_manager.ts";
 * const shells = new ShellManager();
 * await using _scope = shells.openScope();
 * assert.ok((await shells.run({ command: "echo hi" })) === "hi");
 * const started = await shells.run({ command: "sleep 30", background: true });
 * assert.ok(started.startsWith("Shell started, shell_id: bash-"));
 * ```
 */
export class ShellManager {
  #timings: ShellTimings;
  #shells = new Map<string, ManagedShell>();
  #owners = new Map<ManagedShell, ShellScope | null>();
  #open: ShellScope[] = [];
  #lastScope: ShellScope | null = null;
  #defaultEnvironment: Environment | null = null;
  #outputMaxBytes: () => number;
  #spillDir: string | null;
  #ownSpillDir = false;
  #spills = new Map<ShellScope, Set<string>>();
  #staleSweep: Promise<string[]> | null = null;

  /**
   * Creates a manager with no shells and no scope.
   *
   * @param options timing overrides
   */
  constructor(options: ShellManagerOptions = {}) {
    this.#timings = { ...DEFAULT_SHELL_TIMINGS, ...options.timings };
    const max = options.outputMaxBytes ?? DEFAULT_OUTPUT_MAX_BYTES;
    if (typeof max === "number") checkOutputMaxBytes(max);
    this.#outputMaxBytes = typeof max === "number" ? () => max : max;
    this.#spillDir = options.spillDir ?? null;
  }

  /**
   * Opens a new scope and makes it current until it closes. The first scope also starts
   * {@link ShellManager.removeStaleSpills} in the background.
   */
  openScope(): ShellScope {
    const scope = new ShellScope((closing) => {
      this.#open = this.#open.filter((open) => open !== closing);
    }, (closed) => this.#removeSpills(closed));
    this.#open.push(scope);
    this.#lastScope = scope;
    void this.removeStaleSpills();
    return scope;
  }

  /**
   * Removes (once per manager) the spill folders `<tmpdir>/bub-output-<pid>-*` of processes that
   * are gone (a crash or a kill skipped their cleanup) and returns their paths; folders of live
   * processes are kept. Never rejects.
   */
  removeStaleSpills(): Promise<string[]> {
    this.#staleSweep ??= removeStaleSpillDirs().catch(() => []);
    return this.#staleSweep;
  }

  /**
   * The lifespan the builtin `provideLifespan` hook returns: opens a scope, yields it once, and
   * closes it (terminating its shells) when resumed or when an error is thrown in, before the
   * generator finishes.
   */
  async *lifespan(): AsyncGenerator<ShellScope, void, unknown> {
    const scope = this.openScope();
    try {
      yield scope;
    } finally {
      await scope.close();
    }
  }

  /** The scope new shells belong to: the newest open one, else the last closed one, else null. */
  get currentScope(): ShellScope | null {
    return this.#open.at(-1) ?? this.#lastScope;
  }

  /** Every live shell. */
  get shells(): ManagedShell[] {
    return [...this.#shells.values()];
  }

  /**
   * Starts a shell in its scope with end-of-file on stdin and output capture. Fails with
   * `shell runtime is closed` when the scope is closed, or closes while the process starts
   * (the new process is then terminated first).
   */
  start(options: ShellStartOptions): Promise<ManagedShell> {
    const scope = options.scope === undefined ? this.currentScope : options.scope;
    if (scope?.closed) return Promise.reject(new BubError("tool", SHELL_RUNTIME_CLOSED));
    const started = this.#start(options, scope);
    return scope ? scope.track(started) : started;
  }

  /** The live shell `id`; throws a `not_found` {@link BubError} `unknown shell id: <id>`. */
  get(id: string): ManagedShell {
    const shell = this.#shells.get(id);
    if (!shell) throw new BubError("not_found", `unknown shell id: ${id}`, { shell_id: id });
    return shell;
  }

  /** True when `id` names a live shell. */
  has(id: string): boolean {
    return this.#shells.has(id);
  }

  /** Terminates shell `id` (see {@link ManagedShell.terminate}) and returns it. */
  async terminate(id: string): Promise<ManagedShell> {
    const shell = this.get(id);
    await shell.terminate();
    return shell;
  }

  /** Waits for shell `id` to finish (see {@link ManagedShell.waitClosed}); returns its exit code. */
  waitClosed(id: string): Promise<number | null> {
    return this.get(id).waitClosed();
  }

  /**
   * Terminates the shells of `sessionId` that belong to the current scope (or `options.scope`)
   * and returns how many there were; shells of other scopes and managers are untouched.
   */
  async terminateSession(
    sessionId: string,
    options: { scope?: ShellScope | null } = {},
  ): Promise<number> {
    const scope = options.scope === undefined ? this.currentScope : options.scope;
    const targets = this.shells.filter((shell) =>
      shell.sessionId === sessionId && this.#owners.get(shell) === scope
    );
    const results = await Promise.allSettled(targets.map((shell) => shell.terminate()));
    const errors = results.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
    if (errors.length > 0) throw new AggregateError(errors, "shell cleanup failed");
    return targets.length;
  }

  /**
   * The `bash` tool: starts `command` and returns the tool text (background start message,
   * trimmed output or `(no output)`, or the timeout message leaving the shell in the background);
   * a non-zero exit throws a {@link ShellCommandError}; aborting `signal` terminates the shell and
   * rethrows the abort reason.
   */
  async run(options: ShellRunOptions): Promise<string> {
    return await (await shellModules()).runShellCommand(this, options);
  }

  /** The `bash.output` tool text for shell `id`; a shell that exited is finalized and dropped. */
  async readOutput(id: string, options: ShellOutputOptions = {}): Promise<string> {
    const shell = this.get(id);
    if (shell.returncode !== null) await shell.waitClosed();
    const { formatOutput } = await shellModules();
    return formatOutput(shell, options.offset ?? 0, options.limit ?? null);
  }

  /** The `bash.kill` tool text: terminates shell `id` and reports its status and exit code. */
  async kill(id: string): Promise<string> {
    const shell = await this.terminate(id);
    return (await shellModules()).formatKill(shell);
  }

  async #start(options: ShellStartOptions, scope: ShellScope | null): Promise<ManagedShell> {
    options.signal?.throwIfAborted();
    const id = this.#newId();
    const { ManagedShell, OutputBuffer } = await shellModules();
    const output = new OutputBuffer(this.#outputMaxBytes(), () => this.#spillPath(id, scope));
    const environment = options.environment ??
      (this.#defaultEnvironment ??= new LocalEnvironment());
    const cwd = options.cwd ?? null;
    const process = await environment.spawn(options.command, { cwd, env: options.env ?? null });
    const shell = new ManagedShell({
      id,
      command: options.command,
      cwd,
      sessionId: options.sessionId ?? null,
      process,
      timings: this.#timings,
      output,
      onFinalized: (done) => {
        this.#shells.delete(done.id);
        this.#owners.get(done)?.delete(done);
        this.#owners.delete(done);
      },
    });
    this.#shells.set(shell.id, shell);
    this.#owners.set(shell, scope);
    scope?.add(shell);
    if (scope?.closed) {
      await shell.terminate();
      throw new BubError("tool", SHELL_RUNTIME_CLOSED, { shell_id: shell.id });
    }
    return shell;
  }

  /** The spill file of shell `id`, recorded so that closing `scope` removes it. */
  #spillPath(id: string, scope: ShellScope | null): string {
    if (this.#spillDir === null) {
      this.#spillDir = makeSpillDir();
      this.#ownSpillDir = true;
    }
    const path = join(this.#spillDir, `${id}.log`);
    if (scope) {
      const paths = this.#spills.get(scope) ?? new Set();
      this.#spills.set(scope, paths.add(path));
    }
    return path;
  }

  /** Removes the spill files of `scope`, and the manager's own folder once no scope is open. */
  async #removeSpills(scope: ShellScope): Promise<void> {
    const paths = this.#spills.get(scope) ?? [];
    this.#spills.delete(scope);
    const last = this.#open.length === 0 && this.#ownSpillDir;
    const dir = last ? this.#spillDir : null;
    if (last) {
      this.#spillDir = null;
      this.#ownSpillDir = false;
    }
    await removeSpillFiles(paths, dir);
  }

  #newId(): string {
    for (;;) {
      const id = `bash-${_randomHex8()}`;
      if (!this.#shells.has(id)) return id;
    }
  }
}

/** Random bytes drawn 1 KiB at a time: one `getRandomValues` call per shell cost ~0.15 ms. */
let randomPool = new Uint32Array(0);
let randomAt = 0;

/** Eight random lowercase hex digits. */
function _randomHex8(): string {
  if (randomAt >= randomPool.length) {
    randomPool = crypto.getRandomValues(new Uint32Array(256));
    randomAt = 0;
  }
  return randomPool[randomAt++]!.toString(16).padStart(8, "0");
}
