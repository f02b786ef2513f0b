/**
 * Terminal text helpers that need no Markdown parser: the styler type and the on-screen width of
 * styled text (kept apart from markdown.ts, which loads `marked`).
 *
 * @module
 */

/**
 * Styles `text` with `node:util` `styleText` formats; a plain renderer returns `text` as is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderMarkdown, type TextStyler } from "@bub/core/channels";
 * const brackets: TextStyler = (_format, text) => `[${text}]`;
 * assert.match(renderMarkdown("**bold**", { style: brackets, width: 40 }), /\[bold\]/);
 * ```
 */
export type TextStyler = (format: string | string[], text: string) => string;

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g;

/**
 * The number of columns `text` takes on screen (ANSI escapes excluded, one column per code point).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { visibleWidth } from "@bub/core/channels";
 * assert.equal(visibleWidth("\x1b[1mhi\x1b[0m"), 2); // escape codes take no columns
 * ```
 */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const _ of text.replace(ANSI, "")) width++;
  return width;
}
