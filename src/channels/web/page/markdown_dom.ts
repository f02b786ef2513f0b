/**
 * Markdown blocks (see `markdown.ts`) as DOM nodes built with `createElement` and text nodes:
 * model output can never inject markup.
 *
 * @module
 */
import { el } from "./dom.ts";
import { type Block, type Inline, parseMarkdown } from "./markdown.ts";

function inlineNodes(items: Inline[]): Node[] {
  return items.map((item): Node => {
    switch (item.type) {
      case "text":
        return document.createTextNode(item.text);
      case "code":
        return el("code", "", item.text);
      case "em":
      case "strong": {
        const node = el(item.type);
        node.append(...inlineNodes(item.children));
        return node;
      }
      case "link": {
        const node = el("a");
        node.href = item.href;
        node.rel = "noopener noreferrer";
        node.target = "_blank";
        node.append(...inlineNodes(item.children));
        return node;
      }
    }
  });
}

function blockNode(block: Block): HTMLElement {
  switch (block.type) {
    case "paragraph": {
      const node = el("p");
      node.append(...inlineNodes(block.children));
      return node;
    }
    case "heading": {
      const node = el(`h${Math.min(6, block.level + 2)}` as "h3");
      node.append(...inlineNodes(block.children));
      return node;
    }
    case "code": {
      const pre = el("pre", "code");
      const code = el("code", "", block.text);
      if (block.lang) code.dataset.lang = block.lang;
      pre.append(code);
      return pre;
    }
    case "list": {
      const list = el(block.ordered ? "ol" : "ul");
      for (const item of block.items) {
        const li = el("li");
        li.append(...inlineNodes(item));
        list.append(li);
      }
      return list;
    }
  }
}

/** Replaces the children of `target` with `source` rendered as Markdown. */
export function renderMarkdown(target: HTMLElement, source: string): void {
  target.replaceChildren(...parseMarkdown(source).map(blockNode));
}
