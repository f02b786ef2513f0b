/**
 * A small Markdown subset parsed into a tree the page turns into DOM nodes (never HTML text):
 * paragraphs, fenced code blocks, headings, bullet and numbered lists, inline code, emphasis
 * (`*x*`, `_x_`), strong (`**x**`) and links whose target is http(s) only. Anything else stays
 * text. Pure (no DOM), so it runs in tests on every runtime.
 *
 * @module
 */

/** An inline piece of text. */
export type Inline =
  | { type: "text"; text: string }
  | { type: "code"; text: string }
  | { type: "em" | "strong"; children: Inline[] }
  | { type: "link"; href: string; children: Inline[] };

/** A block of the document. */
export type Block =
  | { type: "paragraph"; children: Inline[] }
  | { type: "heading"; level: number; children: Inline[] }
  | { type: "code"; lang: string; text: string }
  | { type: "list"; ordered: boolean; items: Inline[][] };

const FENCE = /^\s*(```|~~~)\s*([\w+-]*)\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,9}[.)]\s+(.*)$/;
const HEADING = /^(#{1,6})\s+(.*)$/;

/** True when `href` is an absolute http(s) URL (the only links the page makes clickable). */
export function safeHref(href: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(href);
}

function delimited(text: string, at: number, mark: string): number {
  const end = text.indexOf(mark, at + mark.length);
  if (end <= at + mark.length) return -1;
  const inner = text.slice(at + mark.length, end);
  return inner.trim() === inner ? end : -1;
}

/** Parses inline Markdown: code spans, strong, emphasis and http(s) links. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = "";
  const flush = (): void => {
    if (plain) out.push({ type: "text", text: plain });
    plain = "";
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "`") {
      const end = text.indexOf("`", i + 1);
      if (end > i + 1) {
        flush();
        out.push({ type: "code", text: text.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    if (text.startsWith("**", i)) {
      const end = delimited(text, i, "**");
      if (end > 0) {
        flush();
        out.push({ type: "strong", children: parseInline(text.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
    }
    if ((ch === "*" || ch === "_") && !/\w/.test(text[i - 1] ?? "")) {
      const end = delimited(text, i, ch);
      if (end > 0 && !/\w/.test(text[end + 1] ?? "")) {
        flush();
        out.push({ type: "em", children: parseInline(text.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (ch === "[") {
      const match = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(text.slice(i));
      if (match && safeHref(match[2]!)) {
        flush();
        out.push({ type: "link", href: match[2]!, children: parseInline(match[1]!) });
        i += match[0].length;
        continue;
      }
    }
    plain += ch;
    i++;
  }
  flush();
  return out;
}

/**
 * Parses `source` into blocks. An unclosed code fence runs to the end (a streamed answer is
 * parsed again as it grows, so a half-written block renders as code at once).
 */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const endParagraph = (): void => {
    if (paragraph.length) {
      blocks.push({ type: "paragraph", children: parseInline(paragraph.join("\n")) });
    }
    paragraph = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      endParagraph();
      const body: string[] = [];
      i++;
      while (i < lines.length && lines[i]!.trim() !== fence[1]) body.push(lines[i++]!);
      blocks.push({ type: "code", lang: fence[2] ?? "", text: body.join("\n") });
      i++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      endParagraph();
      blocks.push({
        type: "heading",
        level: heading[1]!.length,
        children: parseInline(heading[2]!),
      });
      i++;
      continue;
    }
    const item = BULLET.exec(line) ?? NUMBERED.exec(line);
    if (item) {
      endParagraph();
      const ordered = !BULLET.test(line);
      const pattern = ordered ? NUMBERED : BULLET;
      const items: Inline[][] = [];
      let match: RegExpExecArray | null;
      while (i < lines.length && (match = pattern.exec(lines[i]!))) {
        items.push(parseInline(match[1]!));
        i++;
      }
      blocks.push({ type: "list", ordered, items });
      continue;
    }
    if (line.trim() === "") endParagraph();
    else paragraph.push(line);
    i++;
  }
  endParagraph();
  return blocks;
}
