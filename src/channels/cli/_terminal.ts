/**
 * The CLI's output surface: every write goes through one {@link Terminal}, which keeps a live
 * region (the Markdown block being streamed and a status line) at the bottom of a TTY and
 * redraws the input prompt below it. On a pipe only committed text is written, without colours.
 *
 * @module
 */
import type { Writable } from "node:stream";
import type { WriteStream } from "node:tty";
import { styleText } from "node:util";
import { type TextStyler, visibleWidth } from "./_text_width.ts";

const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";

/** One update of the terminal. */
export interface TerminalUpdate {
  /** Text printed for good (each line ends with a newline; one is added when missing). */
  commit?: string;
  /** The transient block shown below committed text (TTY only); null clears it. */
  live?: string | null;
  /** The status line shown below the live block (TTY only); null clears it. */
  status?: string | null;
}

/** Redraws the input prompt after the terminal wrote above it. */
export interface PromptSurface {
  /** Redraws the prompt and the current input on the (cleared) current line. */
  redraw(): void;
}

type StyleFormat = Parameters<typeof styleText>[0];

/** True when `stream` accepts colours (a TTY with colour support, honouring NO_COLOR etc.). */
function supportsColour(stream: Writable): boolean {
  try {
    return styleText("red", "x", { stream: stream as WriteStream, validateStream: true }) !==
      "x";
  } catch {
    return false;
  }
}

/** Serialised writes to the output with a live region on TTYs. */
export class Terminal {
  /** True when the output is a terminal (live region, synchronized updates, prompt). */
  readonly tty: boolean;
  /** Styles text when the output takes colours; identity otherwise. */
  readonly style: TextStyler;
  #output: Writable;
  #live = "";
  #status = "";
  #rows = 0;
  #prompt: PromptSurface | null = null;

  /** @param output the stream written to @param tty whether to drive it as a terminal */
  constructor(output: Writable, tty: boolean) {
    this.#output = output;
    this.tty = tty;
    const colour = supportsColour(output);
    this.style = colour
      ? (format, text) =>
        text === "" ? "" : styleText(format as StyleFormat, text, { validateStream: false })
      : (_format, text) => text;
  }

  /** Columns of the output (80 when unknown). */
  get columns(): number {
    const columns = (this.#output as { columns?: number }).columns;
    return typeof columns === "number" && columns > 0 ? columns : 80;
  }

  /** Rows of the output (24 when unknown). */
  get rows(): number {
    const rows = (this.#output as { rows?: number }).rows;
    return typeof rows === "number" && rows > 0 ? rows : 24;
  }

  /** Installs (or removes) the prompt redrawn below the output on TTYs. */
  setPrompt(prompt: PromptSurface | null): void {
    this.#prompt = prompt;
  }

  /** Prints `text` for good. */
  print(text: string): void {
    this.update({ commit: text.endsWith("\n") ? text : text + "\n" });
  }

  /** Applies one update in a single write. */
  update(update: TerminalUpdate): void {
    let commit = update.commit ?? "";
    if (commit && !commit.endsWith("\n")) commit += "\n";
    if (!this.tty) {
      if (commit) this.#write(commit);
      return;
    }
    if (update.live !== undefined) this.#live = update.live ?? "";
    if (update.status !== undefined) this.#status = update.status ?? "";
    let out = SYNC_START + "\r\x1b[2K";
    if (this.#rows > 0) out += `\x1b[${this.#rows}F\x1b[J`;
    out += commit;
    const tail = [this.#live, this.#status].filter((part) => part !== "").join("\n");
    if (tail) out += tail + "\n";
    this.#rows = tail ? this.#countRows(tail) : 0;
    this.#write(out);
    this.#prompt?.redraw();
    this.#write(SYNC_END);
  }

  /** Erases the `rows` lines above the cursor (e.g. the prompt line just submitted). */
  eraseAbove(rows: number): void {
    if (!this.tty || rows <= 0) return;
    this.#write(`\x1b[${rows}F\x1b[J`);
  }

  /** Screen rows `text` takes at the current width. */
  countRows(text: string): number {
    return this.#countRows(text);
  }

  #countRows(text: string): number {
    const columns = this.columns;
    let rows = 0;
    for (const line of text.split("\n")) {
      rows += Math.max(1, Math.ceil(visibleWidth(line) / columns));
    }
    return rows;
  }

  #write(text: string): void {
    const output = this.#output as Writable & { destroyed?: boolean; writableEnded?: boolean };
    if (output.destroyed || output.writableEnded) return;
    output.write(text);
  }
}
