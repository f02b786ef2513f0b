/**
 * Terminal Markdown: the `marked` lexer plus a small ANSI renderer built on `node:util`
 * `styleText`, and {@link MarkdownStream}, which splits a growing document into blocks that are
 * final and the block still being written.
 *
 * @module
 */
import { Lexer, type Token, type Tokens } from "marked";
import { type TextStyler, visibleWidth } from "./_text_width.ts";

export { type TextStyler, visibleWidth };

function lex(source: string): MarkdownToken[] {
  return Lexer.lex(source) as MarkdownToken[];
}

/**
 * A `marked` lexer token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MarkdownStream, type MarkdownToken } from "@bub/core/channels";
 * const tokens: MarkdownToken[] = new MarkdownStream().push("# Title\n\nbody").completed;
 * assert.equal(tokens[0]?.type, "heading");
 * ```
 */
export type MarkdownToken = Token;

/**
 * Options of {@link renderMarkdown}.
 *
 * @example
 * ```ts
 * import { renderMarkdown, type RenderMarkdownOptions } from "@bub/core/channels";
 * const options: RenderMarkdownOptions = { width: 60, style: (_format, text) => text };
 * console.log(renderMarkdown("- one\n- two", options));
 * ```
 */
export interface RenderMarkdownOptions {
  /** Applies colours; default: no styling (plain text). */
  style?: TextStyler;
  /** Terminal width in columns, for rules and tables. Default 80. */
  width?: number;
}

const PLAIN: TextStyler = (_format, text) => text;
const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
  "&nbsp;": " ",
};

function decode(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39|nbsp);/g, (entity) => ENTITIES[entity] ?? entity);
}

interface Ctx {
  style: TextStyler;
  width: number;
}

function inline(tokens: readonly MarkdownToken[] | undefined, ctx: Ctx): string {
  if (!tokens) return "";
  return tokens.map((token) => inlineToken(token, ctx)).join("");
}

function inlineToken(token: MarkdownToken, ctx: Ctx): string {
  const { style } = ctx;
  switch (token.type) {
    case "strong":
      return style("bold", inline((token as Tokens.Strong).tokens, ctx));
    case "em":
      return style("italic", inline((token as Tokens.Em).tokens, ctx));
    case "del":
      return style("strikethrough", inline((token as Tokens.Del).tokens, ctx));
    case "codespan":
      return style(["bold", "cyan"], decode((token as Tokens.Codespan).text));
    case "br":
      return "\n";
    case "link": {
      const link = token as Tokens.Link;
      const text = inline(link.tokens, ctx);
      const label = style(["underline", "blue"], text);
      return text === link.href ? label : `${label} ${style("dim", `(${link.href})`)}`;
    }
    case "image": {
      const image = token as Tokens.Image;
      return style("dim", `[image: ${image.text || image.href}]`);
    }
    case "checkbox":
      return (token as Tokens.Checkbox).checked ? "[x] " : "[ ] ";
    case "escape":
      return (token as Tokens.Escape).text;
    case "text": {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens, ctx) : decode(text.text);
    }
    default:
      return decode("text" in token && typeof token.text === "string" ? token.text : token.raw);
  }
}

function indent(lines: string[], first: string, rest: string): string[] {
  return lines.map((line, i) => (i === 0 ? first : rest) + line);
}

function renderList(list: Tokens.List, ctx: Ctx): string[] {
  const out: string[] = [];
  const start = typeof list.start === "number" ? list.start : 1;
  list.items.forEach((item, i) => {
    const marker = list.ordered ? `${start + i}. ` : "• ";
    const body = blocks(item.tokens, ctx, item.loose);
    const lines = body.length === 0 ? [""] : body;
    out.push(...indent(lines, ctx.style("yellow", marker), " ".repeat(marker.length)));
    if (list.loose && i < list.items.length - 1) out.push("");
  });
  return out;
}

function pad(text: string, width: number, align: string | null): string {
  const gap = Math.max(0, width - visibleWidth(text));
  if (align === "right") return " ".repeat(gap) + text;
  if (align === "center") {
    const left = Math.floor(gap / 2);
    return " ".repeat(left) + text + " ".repeat(gap - left);
  }
  return text + " ".repeat(gap);
}

function renderTable(table: Tokens.Table, ctx: Ctx): string[] {
  const header = table.header.map((cell) => ctx.style("bold", inline(cell.tokens, ctx)));
  const rows = table.rows.map((row) => row.map((cell) => inline(cell.tokens, ctx)));
  const widths = header.map((cell, i) =>
    Math.max(visibleWidth(cell), ...rows.map((row) => visibleWidth(row[i] ?? "")))
  );
  const line = (cells: string[]): string =>
    cells.map((cell, i) => pad(cell, widths[i] ?? 0, table.align[i] ?? null)).join(" │ ");
  const rule = ctx.style("dim", widths.map((w) => "─".repeat(w)).join("─┼─"));
  return [line(header), rule, ...rows.map(line)];
}

function block(token: MarkdownToken, ctx: Ctx, loose: boolean): string[] {
  const { style } = ctx;
  switch (token.type) {
    case "space":
      return [];
    case "heading": {
      const heading = token as Tokens.Heading;
      const text = `${"#".repeat(heading.depth)} ${inline(heading.tokens, ctx)}`;
      return [style(heading.depth === 1 ? ["bold", "underline"] : ["bold"], text)];
    }
    case "paragraph":
      return inline((token as Tokens.Paragraph).tokens, ctx).replace(/[ \t]+(?=\n|$)/g, "")
        .split("\n");
    case "text": {
      const text = token as Tokens.Text;
      const lines = (text.tokens ? inline(text.tokens, ctx) : decode(text.text)).split("\n");
      return loose ? [...lines, ""] : lines;
    }
    case "code": {
      const code = token as Tokens.Code;
      const lines = code.text.split("\n").map((line) => "  " + style("cyan", line));
      return code.lang ? [style("dim", `  ${code.lang}`), ...lines] : lines;
    }
    case "blockquote": {
      const inner = blocks((token as Tokens.Blockquote).tokens, ctx, false);
      return inner.map((line) => style("dim", "│ ") + style("italic", line));
    }
    case "list":
      return renderList(token as Tokens.List, ctx);
    case "table":
      return renderTable(token as Tokens.Table, ctx);
    case "hr":
      return [style("dim", "─".repeat(Math.max(1, ctx.width)))];
    case "html":
      return decode((token as Tokens.HTML).text).replace(/\n+$/, "").split("\n");
    case "checkbox":
      return [inlineToken(token, ctx)];
    default:
      return token.raw.replace(/\n+$/, "").split("\n");
  }
}

function blocks(tokens: readonly MarkdownToken[], ctx: Ctx, loose: boolean): string[] {
  const out: string[] = [];
  let checkbox = "";
  for (const token of tokens) {
    if (token.type === "checkbox") {
      checkbox = inlineToken(token, ctx);
      continue;
    }
    const lines = block(token, ctx, loose);
    if (lines.length === 0) continue;
    if (checkbox) {
      lines[0] = checkbox + lines[0];
      checkbox = "";
    }
    // Top-level and loose blocks are separated by one blank line.
    if (out.length > 0 && out.at(-1) !== "" && (loose || token.type !== "list")) out.push("");
    out.push(...lines);
  }
  if (checkbox) out.push(checkbox.trimEnd());
  while (out.at(-1) === "") out.pop();
  return out;
}

/**
 * Renders lexed block tokens as terminal lines (no trailing newline).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MarkdownStream, renderTokens } from "@bub/core/channels";
 * const stream = new MarkdownStream();
 * const { completed } = stream.push("Hello *world*.\n\nMore");
 * assert.match(renderTokens(completed, { style: (_format, text) => text }), /Hello world\./);
 * ```
 */
export function renderTokens(
  tokens: readonly MarkdownToken[],
  options: RenderMarkdownOptions = {},
): string {
  const ctx: Ctx = { style: options.style ?? PLAIN, width: options.width ?? 80 };
  return blocks(tokens, ctx, true).join("\n");
}

/**
 * Renders a Markdown document for a terminal: headings keep their `#` marks, lists get bullets,
 * code blocks are indented, and colours come from `options.style`.
 *
 * @example Plain rendering
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderMarkdown } from "@bub/core/channels";
 * const text = renderMarkdown("# Hi\n\n- **one**\n- two");
 * assert.ok(text === "# Hi\n\n• one\n• two");
 * ```
 */
export function renderMarkdown(source: string, options: RenderMarkdownOptions = {}): string {
  return renderTokens(lex(source), options);
}

/**
 * What {@link MarkdownStream.push} found: blocks that are final and the block still growing.
 *
 * @example
 * ```ts
 * import { MarkdownStream, type MarkdownProgress } from "@bub/core/channels";
 * const progress: MarkdownProgress = new MarkdownStream().push("# Title\n\nFirst");
 * console.log(progress.completed.length, progress.pending.length);
 * ```
 */
export interface MarkdownProgress {
  /** Blocks that will not change any more (render and print them once). */
  readonly completed: MarkdownToken[];
  /** The last block, which more text may still change (re-render it live). */
  readonly pending: MarkdownToken[];
}

/**
 * A Markdown document that grows by deltas. A block is final once another block starts after
 * it; only the rest of the document is lexed again on each delta.
 *
 * @example Splitting a streamed answer
 * ```ts
 * import assert from "node:assert/strict";
 * import { MarkdownStream } from "@bub/core/channels";
 * const stream = new MarkdownStream();
 * const first = stream.push("# Title\n\nFirst para");
 * assert.equal(first.completed[0]?.raw, "# Title"); // final: the paragraph after it started
 * const { completed, pending } = stream.push("graph.\n\nSecond");
 * assert.equal(completed[0]?.raw, "First paragraph.");
 * assert.equal(pending[0]?.raw, "Second");
 * ```
 */
export class MarkdownStream {
  #source = "";
  #offset = 0;

  /** The whole document so far. */
  get source(): string {
    return this.#source;
  }

  /** Appends `delta` (CR/LF normalised) and returns newly final blocks and the pending one. */
  push(delta: string): MarkdownProgress {
    this.#source += delta.replace(/\r\n?/g, "\n");
    const rest = this.#source.slice(this.#offset);
    const tokens = lex(rest);
    let last = -1;
    for (let i = tokens.length - 1; i >= 0; i--) {
      if (tokens[i]!.type !== "space") {
        last = i;
        break;
      }
    }
    if (last <= 0) return { completed: [], pending: tokens };
    const completed = tokens.slice(0, last);
    const raw = completed.map((token) => token.raw).join("");
    if (!rest.startsWith(raw)) return { completed: [], pending: tokens };
    this.#offset += raw.length;
    return { completed: completed.filter((t) => t.type !== "space"), pending: tokens.slice(last) };
  }

  /** Ends the document: every remaining block is final. */
  finish(): MarkdownToken[] {
    const rest = this.#source.slice(this.#offset);
    this.#offset = this.#source.length;
    return lex(rest).filter((token) => token.type !== "space");
  }
}
