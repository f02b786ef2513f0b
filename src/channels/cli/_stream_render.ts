/**
 * Live rendering of one turn's stream: reasoning (collapsed to a count, or dimmed), text as one
 * Markdown document per segment inside a panel, tool calls through the reporter. Every event
 * is re-yielded unchanged, except leading whitespace-only text deltas of the turn.
 *
 * @module
 */
import type { StreamEvent } from "../../kernel/stream.ts";
import { type ToolCallReporter, withToolCallReporter } from "../../tools/reporter.ts";
import type { Terminal } from "./_terminal.ts";
import type { MarkdownStream, MarkdownToken } from "./markdown.ts";
import { panelBottom, panelHead } from "./_panel.ts";

/** Options of {@link renderStream}. */
export interface StreamRenderOptions {
  /** Where to draw. */
  terminal: Terminal;
  /** The panel title: `Assistant`, or `Command` for comma commands. */
  title: string;
  /** Read on every reasoning delta: true shows reasoning dimmed, false counts it. */
  thinkingExpanded: () => boolean;
  /** Installed around each step of the stream, so tool calls are printed. */
  reporter: ToolCallReporter;
}

/** The Markdown renderer, loaded with the first rendered stream (it brings `marked`). */
type Markdown = typeof import("./markdown.ts");
let markdownModule: Promise<Markdown> | null = null;
function loadMarkdown(): Promise<Markdown> {
  return markdownModule ??= import("./markdown.ts").catch((error) => {
    markdownModule = null;
    throw error;
  });
}

/** One Markdown segment (the text between tool calls) drawn inside a panel. */
class Segment {
  #terminal: Terminal;
  #title: string;
  #md: Markdown;
  #markdown: MarkdownStream;
  #opened = false;
  #blocks = 0;

  constructor(terminal: Terminal, title: string, md: Markdown) {
    this.#terminal = terminal;
    this.#title = title;
    this.#md = md;
    this.#markdown = new md.MarkdownStream();
  }

  push(delta: string): void {
    const { completed, pending } = this.#markdown.push(delta);
    let commit = this.#render(completed);
    let live: string | null = null;
    if (this.#terminal.tty) {
      const text = this.#format(this.#md.renderTokens(pending, this.#options()));
      if (text.trim() !== "") {
        if (!this.#opened) commit = this.#open() + commit;
        live = this.#tail(this.#blocks > 0 || commit ? "\n" + text : text);
      }
    }
    this.#terminal.update({ commit, live });
  }

  /** Prints what is left and the bottom border; true when the panel showed anything. */
  finish(): boolean {
    let commit = this.#render(this.#markdown.finish());
    const opened = this.#opened;
    if (opened) commit += panelBottom(this.#title, this.#terminal.style, this.#terminal.columns);
    this.#terminal.update({ commit, live: null });
    this.#markdown = new this.#md.MarkdownStream();
    this.#opened = false;
    this.#blocks = 0;
    return opened;
  }

  #options(): { style: Terminal["style"]; width: number } {
    return { style: this.#terminal.style, width: Math.min(this.#terminal.columns, 100) };
  }

  #format(text: string): string {
    return text.replace(/\n+$/, "");
  }

  #open(): string {
    this.#opened = true;
    return panelHead(this.#title, this.#terminal.style, this.#terminal.columns) + "\n";
  }

  #render(tokens: readonly MarkdownToken[]): string {
    const text = this.#format(this.#md.renderTokens(tokens, this.#options()));
    if (text.trim() === "") return "";
    const head = this.#opened ? "" : this.#open();
    const separator = this.#blocks > 0 ? "\n" : "";
    this.#blocks += tokens.length;
    return `${head}${separator}${text}\n`;
  }

  /** The last lines of a live block that still fit on the screen. */
  #tail(text: string): string {
    const max = Math.max(3, this.#terminal.rows - 3);
    const lines = text.split("\n");
    return lines.length > max ? lines.slice(-max).join("\n") : text;
  }
}

/** Reasoning display state for one turn. */
class Reasoning {
  #terminal: Terminal;
  #hidden = 0;
  #open = false;
  #partial = "";

  constructor(terminal: Terminal) {
    this.#terminal = terminal;
  }

  add(delta: string, expanded: boolean): void {
    const { style } = this.#terminal;
    if (!expanded) {
      this.#hidden += [...delta].length;
      return;
    }
    let commit = "";
    if (!this.#open) {
      this.#open = true;
      commit = style("dim", "[-] Thinking") + "\n";
    }
    const lines = (this.#partial + delta).split("\n");
    this.#partial = lines.pop() ?? "";
    if (lines.length > 0) commit += lines.map((line) => style("dim", line)).join("\n") + "\n";
    const live = this.#partial ? style("dim", this.#partial) : null;
    this.#terminal.update({ commit, live });
  }

  flush(): void {
    const { style } = this.#terminal;
    let commit = "";
    if (this.#open && this.#partial) commit += style("dim", this.#partial) + "\n";
    if (this.#hidden > 0) {
      commit += style("dim", `[+] Thinking (${this.#hidden} chars hidden)`) + "\n";
    }
    const wasOpen = this.#open;
    this.#open = false;
    this.#partial = "";
    this.#hidden = 0;
    if (commit || wasOpen) this.#terminal.update({ commit, live: null });
  }
}

function deltaOf(event: StreamEvent): string {
  const delta = event.data?.delta;
  return delta === undefined || delta === null ? "" : String(delta);
}

/** Renders `stream` while re-yielding its events (see the module docs). */
export async function* renderStream(
  stream: AsyncIterable<StreamEvent>,
  options: StreamRenderOptions,
): AsyncGenerator<StreamEvent, void, undefined> {
  const { terminal, reporter } = options;
  const iterator = stream[Symbol.asyncIterator]();
  const md = await loadMarkdown();
  let segment = new Segment(terminal, options.title, md);
  const reasoning = new Reasoning(terminal);
  let textStarted = false;
  let finished = false;
  try {
    while (true) {
      const step = await withToolCallReporter(reporter, () => iterator.next());
      if (step.done) {
        finished = true;
        return;
      }
      const event = step.value;
      switch (event.kind) {
        case "reasoning":
          reasoning.add(deltaOf(event), options.thinkingExpanded());
          break;
        case "text": {
          const delta = deltaOf(event);
          if (!textStarted && delta.trim() === "") continue;
          textStarted = true;
          reasoning.flush();
          segment.push(delta);
          break;
        }
        case "tool_call":
          reasoning.flush();
          if (segment.finish()) terminal.print("");
          segment = new Segment(terminal, options.title, md);
          break;
        case "final":
          reasoning.flush();
          segment.finish();
          break;
      }
      yield event;
    }
  } catch (error) {
    finished = true;
    throw error;
  } finally {
    reasoning.flush();
    segment.finish();
    if (!finished) await iterator.return?.();
  }
}
