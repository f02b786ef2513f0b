/**
 * The CLI's input/output types shared by the builtin commands, channels and framework: where a
 * command writes, how it ends with an exit code, and the demo model it may start.
 *
 * @module
 */

import { redactKnownSecrets } from "../_internal/secrets.ts";

/**
 * Ends a command with an exit code and a message for stderr (known secrets redacted).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CliExit } from "@bub/core/builtin";
 * const exit = new CliExit(2, "Unknown command: frobnicate");
 * assert.equal(exit.exitCode, 2);
 * ```
 */
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

/**
 * Where commands write.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import type { CliOutput } from "@bub/core/builtin";
 * const lines: string[] = [];
 * const output: CliOutput = { out: (text) => void lines.push(text), err: (text) => void lines.push(text) };
 * const bub = new BubFramework();
 * bub.cliOutput = output; // builtin commands print here instead of the process streams
 * ```
 */
export interface CliOutput {
  /** Standard output. */
  out(text: string): void;
  /** Standard error. */
  err(text: string): void;
}

/**
 * A running demo model server (`--demo`): an OpenAI-compatible API base at `url`.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import type { DemoModel } from "@bub/core/builtin";
 * import { MockLlmServer, demoResponder } from "@bub/core/testing";
 * const bub = new BubFramework();
 * bub.demoModel = async (): Promise<DemoModel> => {
 *   const server = await MockLlmServer.start({ script: demoResponder });
 *   return { url: server.url, [Symbol.asyncDispose]: () => server.close() };
 * };
 * ```
 */
export interface DemoModel extends AsyncDisposable {
  /** The API base. */
  readonly url: string;
}
