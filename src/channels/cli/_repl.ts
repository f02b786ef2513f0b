/**
 * Line input for the CLI: a `node:readline/promises` interface with history and completion.
 * On a TTY it also handles Ctrl-C (`SIGINT`), Ctrl-X (shell mode) and keeps the prompt below
 * the output; on a pipe it just reads lines until the input ends.
 *
 * @module
 */
import type { Readable, Writable } from "node:stream";
import { createInterface, type Interface } from "node:readline/promises";
import type { Terminal } from "./_terminal.ts";
import { HISTORY_SIZE } from "./_history.ts";

/** Callbacks and settings of a {@link LineReader}. */
export interface LineReaderOptions {
  /** The input stream. */
  input: Readable;
  /** The output stream (used for the prompt on a TTY). */
  output: Writable;
  /** The shared terminal. */
  terminal: Terminal;
  /** Earlier entries, newest first. */
  history: string[];
  /** The current prompt label. */
  prompt(): string;
  /** Completion candidates for `line` (TTY only). */
  complete(line: string): string[];
  /** A line was entered (untrimmed). */
  onLine(line: string): void;
  /** Ctrl-C was pressed. */
  onInterrupt(): void;
  /** The input ended (Ctrl-D or end of stream). */
  onEnd(): void;
  /** Ctrl-X was pressed. */
  onToggleShell(): void;
}

interface Keypress {
  ctrl?: boolean;
  meta?: boolean;
  name?: string;
}

/** Reads lines from the input until closed. */
export class LineReader {
  #options: LineReaderOptions;
  #rl: Interface | null = null;
  #closing = false;
  #keypress = (_text: unknown, key: Keypress | undefined): void => {
    if (key?.ctrl && !key.meta && key.name === "x") this.#options.onToggleShell();
  };

  /** @param options input, output and callbacks */
  constructor(options: LineReaderOptions) {
    this.#options = options;
  }

  /** Opens the readline interface and shows the prompt. */
  open(): void {
    if (this.#rl) return;
    const { input, output, terminal } = this.#options;
    const tty = terminal.tty;
    const rl = createInterface({
      input,
      output: tty ? output : undefined,
      terminal: tty,
      history: [...this.#options.history],
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      prompt: this.#options.prompt(),
      completer: tty
        ? (line: string): [string[], string] => [this.#options.complete(line), line]
        : undefined,
    });
    this.#rl = rl;
    rl.on("line", (line: string) => {
      if (tty) {
        terminal.eraseAbove(terminal.countRows(this.#options.prompt() + line));
      }
      this.#options.onLine(line);
      if (tty && !this.#closing) rl.prompt();
    });
    rl.on("close", () => {
      if (tty) terminal.setPrompt(null);
      if (!this.#closing) {
        this.#closing = true;
        this.#options.onEnd();
      }
    });
    if (tty) {
      rl.on("SIGINT", () => {
        rl.write(null, { ctrl: true, name: "e" });
        rl.write(null, { ctrl: true, name: "u" });
        this.#options.onInterrupt();
      });
      input.on("keypress", this.#keypress);
      terminal.setPrompt({ redraw: () => this.#rl && !this.#closing && rl.prompt(true) });
      rl.prompt();
    }
  }

  /** Shows the current prompt label again (after a mode change). */
  refreshPrompt(): void {
    const rl = this.#rl;
    if (!rl || this.#closing) return;
    rl.setPrompt(this.#options.prompt());
    if (this.#options.terminal.tty) rl.prompt(true);
  }

  /** Closes the interface without reporting the end of input. */
  close(): void {
    const rl = this.#rl;
    if (!rl) return;
    this.#closing = true;
    this.#options.input.off("keypress", this.#keypress);
    this.#options.terminal.setPrompt(null);
    rl.close();
  }
}
