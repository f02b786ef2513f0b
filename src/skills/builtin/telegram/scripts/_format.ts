/**
 * Markdown → Telegram HTML for the `telegram` skill script, and splitting long texts.
 *
 * Telegram's HTML mode knows `<b> <i> <u> <s> <code> <pre> <a href> <blockquote>`; everything else
 * must be escaped. The conversion handles the markdown models usually write: fenced code, inline
 * code, bold, italic, strikethrough, links, headings, bullet lists and quotes.
 *
 * @module
 */

/** Telegram's limit on one message's text. */
export const TELEGRAM_TEXT_LIMIT = 4096;

/** Escapes `&`, `<` and `>` for Telegram HTML. */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replaceAll('"', "&quot;");
}

function inline(text: string): string {
  const codes: string[] = [];
  let out = text.replace(/`([^`\n]+)`/g, (_m, code: string) => {
    codes.push(`<code>${escapeHtml(code)}</code>`);
    return `\uE000${codes.length - 1}\uE000`;
  });
  const links: string[] = [];
  out = out.replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (_m, label: string, url: string) => {
    links.push(`<a href="${escapeAttribute(url)}">${escapeHtml(label)}</a>`);
    return `\uE001${links.length - 1}\uE001`;
  });
  out = escapeHtml(out)
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<b>$1</b>")
    .replace(/__(?=\S)([\s\S]*?\S)__/g, "<b>$1</b>")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<s>$1</s>")
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, "$1<i>$2</i>")
    .replace(/(^|[^\w])_(?=\S)([^_\n]*?\S)_(?!\w)/g, "$1<i>$2</i>");
  return out
    .replace(/\uE001(\d+)\uE001/g, (_m, index: string) => links[Number(index)]!)
    .replace(/\uE000(\d+)\uE000/g, (_m, index: string) => codes[Number(index)]!);
}

function block(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  let quote: string[] = [];
  const flushQuote = (): void => {
    if (quote.length > 0) out.push(`<blockquote>${quote.join("\n")}</blockquote>`);
    quote = [];
  };
  for (const line of lines) {
    const quoted = /^\s*>\s?(.*)$/.exec(line);
    if (quoted) {
      quote.push(inline(quoted[1]!));
      continue;
    }
    flushQuote();
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    if (heading) out.push(`<b>${inline(heading[1]!)}</b>`);
    else if (bullet) out.push(`${bullet[1]}• ${inline(bullet[2]!)}`);
    else out.push(inline(line));
  }
  flushQuote();
  return out.join("\n");
}

/**
 * Converts markdown to Telegram HTML.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markdownToTelegramHtml } from "./_format.ts";
 * assert.ok(markdownToTelegramHtml("**hi** <3") === "<b>hi</b> &lt;3");
 * ```
 */
export function markdownToTelegramHtml(markdown: string): string {
  const parts: string[] = [];
  const fence = /^```([\w+-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;
  let last = 0;
  for (const match of markdown.matchAll(fence)) {
    parts.push(block(markdown.slice(last, match.index)));
    const language = match[1] ? ` class="language-${escapeAttribute(match[1])}"` : "";
    parts.push(`<pre><code${language}>${escapeHtml(match[2]!.replace(/\n$/, ""))}</code></pre>`);
    last = match.index + match[0].length;
  }
  parts.push(block(markdown.slice(last)));
  return parts.join("");
}

/**
 * Splits `text` into chunks of at most `limit` characters, preferring paragraph breaks, then line
 * breaks, then spaces; never splits inside a fenced code block unless the block alone is too long.
 */
export function splitMessage(text: string, limit: number = TELEGRAM_TEXT_LIMIT): string[] {
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const cut = findCut(rest.slice(0, limit + 1), limit);
    chunks.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest) chunks.push(rest);
  return chunks;
}

function insideFence(text: string): boolean {
  return (text.match(/^```/gm)?.length ?? 0) % 2 === 1;
}

function findCut(window: string, limit: number): number {
  for (const respectFences of [true, false]) {
    for (const separator of ["\n\n", "\n", " "]) {
      let at = window.lastIndexOf(separator, limit);
      while (respectFences && at > limit / 4 && insideFence(window.slice(0, at))) {
        at = window.lastIndexOf(separator, at - 1);
      }
      if (at > limit / 4) return at;
    }
  }
  return limit;
}
