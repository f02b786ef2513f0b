/**
 * The small, runtime-neutral interface the local environment starts processes through (the
 * driver contract; `driver_select.ts` picks the driver of the running runtime).
 *
 * Drivers use web types only, so no runtime's types leak into public signatures.
 *
 * @module
 */

/**
 * A signal a driver sends to a process group; `0` only probes whether the group exists.
 *
 * @example
 * ```ts
 * import type { GroupSignal } from "@bub/core/environment";
 * const probe: GroupSignal = 0; // checks the group exists without signalling it
 * ```
 */
export type GroupSignal = "SIGTERM" | "SIGKILL" | 0;

/**
 * The outcome of {@link ProcessDriver.signalGroup}.
 *
 * @example
 * ```ts
 * import type { SignalOutcome } from "@bub/core/environment";
 * const stillThere = (outcome: SignalOutcome): boolean => outcome !== "gone";
 * ```
 */
export type SignalOutcome = "sent" | "gone" | "denied";

/**
 * What to start: an executable, its arguments, where, and which variables to add.
 *
 * @example
 * ```ts
 * import type { DriverSpawnRequest } from "@bub/core/environment";
 * const request: DriverSpawnRequest = { file: "/bin/sh", args: ["-c", "ls"], cwd: "/tmp", env: null };
 * ```
 */
export interface DriverSpawnRequest {
  /** The executable: a name looked up on `PATH`, or a path. */
  file: string;
  /** Arguments after the executable. */
  args: string[];
  /** Working directory; null inherits the parent's. */
  cwd: string | null;
  /**
   * Variables added to the parent's environment (null adds none). The child never inherits the
   * parent's secret-named variables (`BUB_*_KEY`, `BUB_*_TOKEN`, `BUB_*SECRET*`, `*_API_KEY`...):
   * see `tool_env.ts`.
   */
  env: Record<string, string> | null;
  /** Secret-named variables the child keeps; absent or null reads `BUB_TOOL_ENV_PASSTHROUGH`. */
  envPassthrough?: readonly string[] | null;
}

/**
 * A started child: piped stdio, an exit promise, and the process id, which is also the id of its
 * own process group.
 *
 * @example
 * ```ts
 * import type { DriverChild } from "@bub/core/environment";
 * async function exitCode(child: DriverChild): Promise<number> {
 *   child.closeStdin();
 *   await child.stdout.cancel();
 *   await child.stderr.cancel();
 *   return await child.exited;
 * }
 * ```
 */
export interface DriverChild {
  /**
   * The process id; the child leads a new process group with the same id. A driver may form the
   * group a moment after `spawn` resolves (the Deno driver's `setsid`); its `signalGroup` then
   * reaches the child itself until the group exists.
   */
  readonly pid: number;
  /** Standard output. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Standard error. */
  readonly stderr: ReadableStream<Uint8Array>;
  /**
   * Resolves with the exit code when the process itself exits (not when its pipes close);
   * a process ended by a signal reports `128 + signal number`, as shells do.
   */
  readonly exited: Promise<number>;
  /** Writes to standard input; resolves once written. */
  writeStdin(data: Uint8Array): Promise<void>;
  /** Closes standard input (the child reads end-of-file). Never throws. */
  closeStdin(): void;
}

/**
 * Starts processes in new process groups and signals those groups.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment, type ProcessDriver } from "@bub/core/environment";
 * const sandboxed: ProcessDriver = {
 *   name: "none",
 *   spawn: () => Promise.reject(new Error("no processes in this sandbox")),
 *   signalGroup: () => "gone",
 * };
 * const env = new LocalEnvironment(null, { driver: sandboxed });
 * await assert.rejects(env.spawn("ls"), /no processes/);
 * ```
 */
export interface ProcessDriver {
  /** `"deno"` or `"node"`. */
  readonly name: string;
  /**
   * Starts `request` detached in a new process group with piped stdio.
   * Rejects with the runtime's own error when the process cannot start.
   */
  spawn(request: DriverSpawnRequest): Promise<DriverChild>;
  /**
   * Sends `signal` to every process of group `pgid`: `"gone"` when no such group exists,
   * `"denied"` when the caller may not signal it. Never throws for those two cases.
   */
  signalGroup(pgid: number, signal: GroupSignal): SignalOutcome;
}
