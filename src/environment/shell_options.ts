/**
 * The options of `ShellManager.start`, `ShellManager.run` and `ShellManager.readOutput`, apart
 * from the manager so the tool texts can name them without importing it.
 *
 * @module
 */
import type { Environment } from "../kernel/environment.ts";
import type { ShellScope } from "./shell_scope.ts";

/** Options of `ShellManager.start`. */
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

/** Options of `ShellManager.readOutput`. */
export interface ShellOutputOptions {
  /** First character to return, clamped to the output. Default 0. */
  offset?: number;
  /** At most this many characters; null or absent reads to the end. */
  limit?: number | null;
}

/** Options of `ShellManager.run`: a start plus the foreground timeout. */
export interface ShellRunOptions extends ShellStartOptions {
  /** Foreground only: after this many seconds the command continues in the background. Default 30. */
  timeoutSeconds?: number;
  /** Return the shell id at once instead of waiting. Default false. */
  background?: boolean;
}
