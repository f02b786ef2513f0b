/**
 * Terminal text helpers that need no Markdown parser: the styler type and the on-screen width of
 * styled text (kept apart from markdown.ts, which loads `marked`).
 *
 * @module
 */

/** Styles `text` with `node:util` `styleText` formats; a plain renderer returns `text` as is. */
export type TextStyler = (format: string | string[], text: string) => string;

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g;

/** The number of columns `text` takes on screen (ANSI escapes excluded, one column per code point). */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const _ of text.replace(ANSI, "")) width++;
  return width;
}
