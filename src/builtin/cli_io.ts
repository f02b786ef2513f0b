/**
 * The CLI's input/output types shared by the builtin commands, channels and framework: where a
 * command writes, how it ends with an exit code, and the demo model it may start.
 *
 * @module
 */

import { redactKnownSecrets } from "../_internal/secrets.ts";

/** Ends a command with an exit code and a message for stderr (known secrets redacted). */
export class CliExit extends Error {
  /** The process exit code. */
  readonly exitCode: number;
  /**
   * Creates the object.
   *
   * @param exitCode the exit code
   * @param message printed to stderr when non-empty
   */
  constructor(exitCode: number, message: string = "") {
    super(redactKnownSecrets(message));
    this.name = "CliExit";
    this.exitCode = exitCode;
  }
}

/** Where commands write. */
export interface CliOutput {
  /** Standard output. */
  out(text: string): void;
  /** Standard error. */
  err(text: string): void;
}

/** A running demo model server (`--demo`): an OpenAI-compatible API base at `url`. */
export interface DemoModel extends AsyncDisposable {
  /** The API base. */
  readonly url: string;
}
