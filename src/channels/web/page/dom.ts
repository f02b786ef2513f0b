/**
 * DOM helpers of the console page: every string enters the document as a text node
 * (`textContent`), never as HTML.
 *
 * @module
 */

/** The element with id `id` (the page's static skeleton has them all). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`The page has no #${id}`);
  return node as T;
}

/** A new `<tag class="cls">` holding `text` as text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls = "",
  text?: unknown,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = String(text);
  return node;
}

/** A value as display text: strings as they are, anything else as indented JSON. */
export function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}
