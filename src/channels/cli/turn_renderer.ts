/**
 * A turn drawn on a terminal the way `bub chat` draws it, for commands that are not the chat:
 * `bub run` on a TTY renders its streamed answer (Markdown in a panel, tool calls as they run)
 * or its finished answer with the same renderer; piped, it prints plain text.
 *
 * @module
 */
import type { Writable } from "node:stream";
import type { StreamEvent } from "../../kernel/stream.ts";
import { panel } from "./_panel.ts";
import { renderStream } from "./_stream_render.ts";
import { Terminal } from "./_terminal.ts";

/** Draws turns on one terminal output. */
export interface TurnRenderer {
  /** Renders `stream` live while re-yielding its events. */
  stream(stream: AsyncIterable<StreamEvent>, title?: string): AsyncIterable<StreamEvent>;
  /** Prints a finished answer rendered as Markdown in a panel. */
  print(text: string, title?: string): Promise<void>;
}

/**
 * The renderer for `output` (a TTY stream: colours when it takes them, its width).
 *
 * @example
 * ```ts
 * import { PassThrough } from "node:stream";
 * import { turnRenderer } from "./turn_renderer.ts";
 * const output = new PassThrough();
 * await turnRenderer(output).print("**done**");
 * console.assert(String(output.read()).includes("done"));
 * ```
 */
export function turnRenderer(output: Writable): TurnRenderer {
  const terminal = new Terminal(output, true);
  return {
    stream: (stream, title = "Assistant") =>
      renderStream(stream, { terminal, title, thinkingExpanded: () => false }),
    async print(text, title = "Assistant") {
      const { renderMarkdown } = await import("./markdown.ts");
      const { style, columns } = terminal;
      terminal.print(panel(title, renderMarkdown(text, { style, width: columns }), style, columns));
    },
  };
}
