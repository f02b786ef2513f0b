/**
 * The environment of an editor's session when the editor offers its file system
 * (`clientCapabilities.fs`) or its terminals (`clientCapabilities.terminal`): the fs tools read
 * through `fs/read_text_file` (so unsaved buffers are seen) and write through
 * `fs/write_text_file` (so edits land in the editor, with its undo), and commands — the `bash`
 * tool's, background shells included — run in the editor's terminals (`terminal/*`, see
 * `terminal_process.ts`), where the user watches them. What the editor does not offer stays in
 * the environment Bub would use anyway.
 *
 * @module
 */
import { Environment, type Process, type SpawnOptions } from "../../kernel/environment.ts";
import { type ClientTerminals, TerminalProcess } from "./terminal_process.ts";

/**
 * The editor's file system, as the ACP client offers it.
 *
 * @example
 * ```ts
 * import type { ClientFs } from "@bub/core/channels";
 * const writeOnly: ClientFs = { readText: null, writeText: () => Promise.resolve() };
 * ```
 */
export interface ClientFs {
  /** Reads a text file, or null when the editor does not offer reading. */
  readText: ((path: string) => Promise<string>) | null;
  /** Writes a text file, or null when the editor does not offer writing. */
  writeText: ((path: string, content: string) => Promise<void>) | null;
}

/**
 * An environment that reads and writes files through the editor and runs commands in its
 * terminals when given them, else in `base`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LocalEnvironment } from "@bub/core/environment";
 * import { ClientFsEnvironment } from "@bub/core/channels";
 * const files = new Map([["/w/a.txt", "unsaved buffer"]]);
 * const env = new ClientFsEnvironment(new LocalEnvironment("/w"), {
 *   readText: (path) => Promise.resolve(files.get(path) ?? ""),
 *   writeText: (path, content) => Promise.resolve(void files.set(path, content)),
 * });
 * assert.equal(await env.readText("/w/a.txt"), "unsaved buffer");
 * await env.writeText("/w/b.txt", "new");
 * assert.equal(files.get("/w/b.txt"), "new");
 * ```
 */
export class ClientFsEnvironment extends Environment {
  readonly #base: Environment;
  readonly #fs: ClientFs;
  readonly #terminals: ClientTerminals | null;

  /** Files through `fs`, commands through `terminals` (when given), the rest through `base`. */
  constructor(base: Environment, fs: ClientFs, terminals: ClientTerminals | null = null) {
    super(base.workspace);
    this.#base = base;
    this.#fs = fs;
    this.#terminals = terminals;
    this.python = base.python;
  }

  /** Runs a command in the editor's terminal, or in the base environment. */
  spawn(command: string | string[], opts: SpawnOptions = {}): Promise<Process> {
    return this.#terminals
      ? TerminalProcess.start(this.#terminals, command, opts, this.#base.workspace)
      : this.#base.spawn(command, opts);
  }

  /** Reads through the editor when it offers reading. */
  readText(path: string): Promise<string> {
    return this.#fs.readText ? this.#fs.readText(path) : this.#base.readText(path);
  }

  /** Writes through the editor when it offers writing. */
  writeText(path: string, content: string): Promise<void> {
    return this.#fs.writeText
      ? this.#fs.writeText(path, content)
      : this.#base.writeText(path, content);
  }

  /** Resolves as the base environment does. */
  override resolvePath(path: string): string {
    return this.#base.resolvePath(path);
  }

  /** Closes the base environment. */
  override close(): Promise<void> {
    return this.#base.close();
  }
}
