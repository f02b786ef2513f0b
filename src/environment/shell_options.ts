/**
 * The options of `ShellManager.start`, `ShellManager.run` and `ShellManager.readOutput`, apart
 * from the manager so the tool texts can name them without importing it.
 *
 * @module
 */
import type { Environment } from "../kernel/environment.ts";
import type { ShellScope } from "./shell_scope.ts";

/**
 * Options of `ShellManager.start`.
 *
 * @example
 * ```ts
 * import { LocalEnvironment, ShellManager, type ShellStartOptions } from "@bub/core/environment";
 * const options: ShellStartOptions = { command: ["sleep", "0"], environment: new LocalEnvironment(), sessionId: "cli:local" };
 * const shell = await new ShellManager().start(options);
 * await shell.waitClosed();
 * ```
 */
export interface ShellStartOptions {
  /** A string runs through the environment's shell; an array runs directly. */
  command: string | string[];
  /** Where to run; defaults to a host `LocalEnvironment` without workspace. */
  environment?: Environment | null;
  /** Working directory inside the environment; defaults to its workspace. */
  cwd?: string | null;
  /** Variables added to the environment's defaults. */
  env?: Record<string, string> | null;
  /** The owning session (used by `ShellManager.terminateSession`). */
  sessionId?: string | null;
  /** The owning scope; defaults to `ShellManager.currentScope`. */
  scope?: ShellScope | null;
  /** Refuses to start when already aborted. */
  signal?: AbortSignal;
}

/**
 * Options of `ShellManager.readOutput`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment, ShellManager, type ShellOutputOptions } from "@bub/core/environment";
 * const shells = new ShellManager();
 * const shell = await shells.start({ command: "printf abcdef", environment: new LocalEnvironment() });
 * await shell.process.wait();
 * const options: ShellOutputOptions = { offset: 2, limit: 3 };
 * assert.match(await shells.readOutput(shell.id, options), /cde/);
 * ```
 */
export interface ShellOutputOptions {
  /** First character to return, clamped to the output. Default 0. */
  offset?: number;
  /** At most this many characters; null or absent reads to the end. */
  limit?: number | null;
}

/**
 * Options of `ShellManager.run`: a start plus the foreground timeout.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment, ShellManager, type ShellRunOptions } from "@bub/core/environment";
 * const options: ShellRunOptions = { command: "echo done", environment: new LocalEnvironment(), timeoutSeconds: 10 };
 * assert.equal(await new ShellManager().run(options), "done");
 * ```
 */
export interface ShellRunOptions extends ShellStartOptions {
  /** Foreground only: after this many seconds the command continues in the background. Default 30. */
  timeoutSeconds?: number;
  /** Return the shell id at once instead of waiting. Default false. */
  background?: boolean;
}
