/**
 * The status line below the output: a "Generating" spinner while a turn runs, the toolbar
 * otherwise. Only drawn on a TTY (a pipe gets neither, and no timer runs).
 *
 * @module
 */
import type { Terminal } from "./_terminal.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const INTERVAL_MS = 100;

/** Drives the status line of a {@link Terminal}. */
export class StatusLine {
  #terminal: Terminal;
  #idle: () => string;
  #timer: ReturnType<typeof setInterval> | null = null;
  #frame = 0;
  #label = "";
  #enabled = false;

  /** @param terminal where to draw @param idle the text shown when no spinner runs */
  constructor(terminal: Terminal, idle: () => string) {
    this.#terminal = terminal;
    this.#idle = idle;
  }

  /** True while the spinner runs. */
  get spinning(): boolean {
    return this.#timer !== null;
  }

  /** Allows drawing (until {@link StatusLine.dispose}). */
  enable(): void {
    this.#enabled = true;
  }

  /** Starts the spinner with `label` (no-op when running, disabled or not on a TTY). */
  start(label: string): void {
    this.#label = label;
    if (!this.#enabled || !this.#terminal.tty || this.#timer !== null) return;
    this.#timer = setInterval(() => this.#draw(), INTERVAL_MS);
    (this.#timer as { unref?: () => void }).unref?.();
    this.#draw();
  }

  /** Stops the spinner and shows the idle text. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.refresh();
  }

  /** Stops the spinner and clears the status line until enabled again. */
  dispose(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    const wasEnabled = this.#enabled;
    this.#enabled = false;
    if (wasEnabled && this.#terminal.tty) this.#terminal.update({ status: null, live: null });
  }

  /** Redraws the idle text (when the spinner is not running). */
  refresh(): void {
    if (!this.#enabled || !this.#terminal.tty || this.#timer !== null) return;
    const text = [...this.#idle()].slice(0, Math.max(1, this.#terminal.columns - 1)).join("");
    this.#terminal.update({ status: this.#terminal.style("dim", text) });
  }

  #draw(): void {
    const frame = FRAMES[this.#frame++ % FRAMES.length]!;
    const { style } = this.#terminal;
    this.#terminal.update({ status: `${style("cyan", frame)} ${style("dim", this.#label)}` });
  }
}
