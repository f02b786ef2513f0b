/**
 * The finished turns of a chat drawn above its live events (see `history.ts`): loaded from the
 * session's tape when the chat opens, newest page first, with a button that loads the page
 * before it.
 *
 * @module
 */
import { api } from "./auth.ts";
import { el, show } from "./dom.ts";
import { errorLines } from "./error_text.ts";
import { chatHistory, type HistoryItem } from "./history.ts";
import { localTime } from "./local_time.ts";
import { renderMarkdown } from "./markdown_dom.ts";
import type { WireEntry } from "./timeline.ts";

/** One drawn item. */
function itemNode(item: HistoryItem): HTMLElement {
  switch (item.type) {
    case "user": {
      const node = el("div", `msg user${item.steer ? " steer" : ""}`, item.text);
      node.title = `${localTime(item.date)} (${item.date})`;
      return node;
    }
    case "bot": {
      const node = el("div", "msg bot md");
      renderMarkdown(node, item.text);
      return node;
    }
    case "note":
      return el("div", "meta note", item.text);
    case "tool": {
      const status = !item.done ? "no result" : item.failed ? "failed" : "ok";
      const card = el(
        "details",
        `tool${item.failed ? " failed" : ""}${item.done ? "" : " stopped"}`,
      );
      card.append(
        el("summary", "", `tool ${item.name} ${status}`),
        el("div", "meta", "arguments"),
        el("pre", "", show(item.arguments)),
      );
      if (item.done) {
        card.append(
          el("div", "meta", item.failed ? "error" : "result"),
          item.failed
            ? el("pre", "err", errorLines(item.result).join("\n"))
            : el("pre", "", show(item.result)),
        );
      }
      return card;
    }
  }
}

/** The history of one chat at the top of `log`. */
export class HistoryView {
  #log: HTMLElement;
  #path: string;
  #earlier = el("button", "link earlier", "load earlier messages");
  #next: number | null = null;
  #closed = false;

  /** Draws into `log` the history of chat `chat`. */
  constructor(log: HTMLElement, chat: string) {
    this.#log = log;
    this.#path = `/api/sessions/${encodeURIComponent(chat)}/history`;
    this.#earlier.type = "button";
    this.#earlier.hidden = true;
    this.#earlier.addEventListener("click", () => void this.load());
    log.prepend(this.#earlier);
  }

  /** Stops drawing (the chat was left). */
  close(): void {
    this.#closed = true;
  }

  /** Loads the newest page (first call) or the page before the one shown, above it. */
  async load(): Promise<void> {
    const before = this.#next === null ? "" : `&before=${this.#next}`;
    this.#earlier.disabled = true;
    try {
      const page = await api<{ entries: WireEntry[]; next: number | null }>(
        `${this.#path}?limit=200${before}`,
      );
      if (this.#closed) return;
      const first = this.#next === null;
      const height = this.#log.scrollHeight;
      this.#earlier.after(...chatHistory(page.entries).map(itemNode));
      this.#next = page.next;
      this.#earlier.hidden = page.next === null;
      // The first page shows the newest turns; an older page keeps the view where it was.
      this.#log.scrollTop = first
        ? this.#log.scrollHeight
        : this.#log.scrollTop + this.#log.scrollHeight - height;
    } finally {
      this.#earlier.disabled = false;
    }
  }
}
