/**
 * The error of a foreground shell command that exited with a non-zero code.
 *
 * @module
 */

/**
 * A foreground command exited with a non-zero code; the message carries the code and output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment, ShellCommandError, ShellManager } from "@bub/core/environment";
 * const shells = new ShellManager();
 * const error = await shells.run({ command: "exit 3", environment: new LocalEnvironment() }).catch((e) => e);
 * assert.ok(error instanceof ShellCommandError);
 * assert.equal(error.exitCode, 3);
 * ```
 */
export class ShellCommandError extends Error {
  /** The exit code. */
  readonly exitCode: number;
  /** The trimmed output, or `(no output)`. */
  readonly output: string;

  /**
   * Creates the error of a failed foreground command.
   *
   * @param exitCode the exit code
   * @param output the trimmed output, or `(no output)`
   */
  constructor(exitCode: number, output: string) {
    super(`command exited with code ${exitCode}\noutput:\n${output}`);
    this.name = "ShellCommandError";
    this.exitCode = exitCode;
    this.output = output;
  }
}
