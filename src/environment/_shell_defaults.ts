/**
 * The defaults and limits a `ShellManager` checks when it is created (termination timings,
 * the output cap): a module of their own so that creating a manager loads none of the shell
 * machinery (`ManagedShell`, the output buffer), which is imported when the first shell starts.
 *
 * @module
 */
import { BubError } from "../kernel/errors.ts";

/**
 * The timing constants of shell termination (milliseconds); injectable for tests.
 *
 * @example
 * ```ts
 * import { ShellManager, type ShellTimings } from "@bub/core/environment";
 * const timings: Partial<ShellTimings> = { terminateTimeoutMs: 1_000 };
 * const shells = new ShellManager({ timings });
 * ```
 */
export interface ShellTimings {
  /** How often termination probes whether the group is gone. Default 50. */
  pollIntervalMs: number;
  /** How long termination waits after TERM before sending KILL. Default 3000. */
  terminateTimeoutMs: number;
  /**
   * How long output may stay silent while a process outside the shell's group keeps its pipes
   * open after the group is gone, before reading stops and the output is marked cut; also how
   * long background processes left in the group get to close the pipes before they are
   * terminated. Default 1000.
   */
  drainTimeoutMs: number;
}

/**
 * The default {@link ShellTimings}: poll 50 ms, TERM grace 3 s, drain 1 s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_SHELL_TIMINGS } from "@bub/core/environment";
 * assert.equal(DEFAULT_SHELL_TIMINGS.terminateTimeoutMs, 3000); // SIGTERM, then SIGKILL after 3 s
 * ```
 */
export const DEFAULT_SHELL_TIMINGS: Readonly<ShellTimings> = Object.freeze({
  pollIntervalMs: 50,
  terminateTimeoutMs: 3000,
  drainTimeoutMs: 1000,
});

/** The default cap of in-memory output per shell: 4 MiB. */
export const DEFAULT_OUTPUT_MAX_BYTES: number = 4 * 1024 * 1024;

/** Throws a `config` {@link BubError} unless `value` is an integer of at least 1024 bytes. */
export function checkOutputMaxBytes(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1024) {
    throw new BubError(
      "config",
      `Invalid tool_output_max_bytes: expected an integer >= 1024, got ${value}`,
    );
  }
  return value;
}
