/**
 * The chat view: the event stream of one chat rendered as messages (answers as Markdown, updated
 * per streamed delta), tool calls as collapsible cards (arguments, result or error, duration)
 * and the token usage of each turn.
 *
 * @module
 */
import { byId, el, show } from "./dom.ts";
import { openEventStream } from "./event_stream.ts";
import { renderMarkdown } from "./markdown_dom.ts";

type Data = Record<string, unknown>;

interface Card {
  card: HTMLDetailsElement;
  summary: HTMLElement;
}

/** Token counts summed over the model calls of one turn. */
interface TurnUsage {
  prompt: number;
  completion: number;
  total: number;
  cached: number;
  calls: number;
}

const num = (value: unknown): number => typeof value === "number" ? value : 0;

/** The text of one turn's usage line (exported for the page's tests). */
export function usageLine(usage: TurnUsage, steps: number, elapsedMs: number): string {
  const parts = [
    `${usage.total || usage.prompt + usage.completion} tokens`,
    `${usage.prompt} in`,
    `${usage.completion} out`,
  ];
  if (usage.cached) parts.push(`${usage.cached} cached`);
  parts.push(`${usage.calls} model call${usage.calls === 1 ? "" : "s"}`);
  parts.push(`${steps} step${steps === 1 ? "" : "s"}`);
  if (elapsedMs) parts.push(`${(elapsedMs / 1000).toFixed(1)} s`);
  return "usage: " + parts.join(" \u00b7 ");
}

/** An error's message and the messages of its causes, one per line. */
export function errorText(error: unknown): string {
  const lines: string[] = [];
  for (let item = error as Data | null, i = 0; item && i < 5; item = item.cause as Data, i++) {
    lines.push((i ? "caused by: " : "") + show(item.message ?? item));
  }
  return lines.join("\n");
}

/** The chat view over `#log`; `connect(chat)` (re)subscribes to a chat's events. */
export class ChatView {
  #log = byId("log");
  #close: (() => void) | null = null;
  #answer: HTMLElement | null = null;
  #answerText = "";
  #frame: number | null = null;
  #cards = new Map<string, Card>();
  #usage: TurnUsage = { prompt: 0, completion: 0, total: 0, cached: 0, calls: 0 };
  #steps = 0;
  #elapsed = 0;
  /** Called after each finished turn (the page refreshes the tape list). */
  onDone: () => void = () => {};

  #append(node: HTMLElement): void {
    this.#log.append(node);
    this.#log.scrollTop = this.#log.scrollHeight;
  }

  #message(cls: string, text: unknown): void {
    this.#answer = null;
    this.#append(el("div", `msg ${cls}`, text));
  }

  #toolCard(data: Data): Card {
    const key = String(data.call_id ?? data.name);
    const found = this.#cards.get(key);
    if (found) return found;
    const card = el("details", "tool");
    const summary = el("summary", "", `tool ${data.name} \u2026`);
    card.append(summary, el("div", "meta", "arguments"), el("pre", "", show(data.arguments)));
    const entry = { card, summary };
    this.#cards.set(key, entry);
    this.#answer = null;
    this.#append(card);
    return entry;
  }

  #toolEnd(data: Data): void {
    const { card, summary } = this.#toolCard(data);
    const ok = data.ok === true;
    summary.textContent = `tool ${data.name} ${ok ? "ok" : "failed"} (${
      Math.round(num(data.duration_ms))
    } ms)`;
    card.classList.toggle("failed", !ok);
    card.append(
      el("div", "meta", ok ? "result" : "error"),
      el("pre", ok ? "" : "err", ok ? show(data.result) : errorText(data.error)),
    );
  }

  #text(delta: string): void {
    if (!this.#answer) {
      this.#answer = el("div", "msg bot md");
      this.#answerText = "";
      this.#append(this.#answer);
    }
    this.#answerText += delta;
    // Render at most once per frame: a long answer is parsed again for each render.
    this.#frame ??= requestAnimationFrame(() => this.#render());
  }

  /** Renders the streamed answer now (before any other event is shown). */
  #render(): void {
    if (this.#frame !== null) cancelAnimationFrame(this.#frame);
    this.#frame = null;
    if (!this.#answer) return;
    renderMarkdown(this.#answer, this.#answerText);
    this.#log.scrollTop = this.#log.scrollHeight;
  }

  #startTurn(content: unknown): void {
    this.#usage = { prompt: 0, completion: 0, total: 0, cached: 0, calls: 0 };
    this.#steps = 0;
    this.#elapsed = 0;
    this.#message("user", content);
  }

  #handle(kind: string, data: Data): void {
    if (kind !== "text") this.#render();
    switch (kind) {
      case "turn_start":
        return this.#startTurn(data.content);
      case "steer":
        return this.#message("user steer", data.content);
      case "text":
        return this.#text(String(data.delta ?? ""));
      case "tool_start":
        this.#toolCard(data);
        return;
      case "tool_end":
        return this.#toolEnd(data);
      case "usage": {
        const details = data.prompt_tokens_details as Data | undefined;
        this.#usage.prompt += num(data.prompt_tokens);
        this.#usage.completion += num(data.completion_tokens);
        this.#usage.total += num(data.total_tokens);
        this.#usage.cached += num(details?.cached_tokens);
        this.#usage.calls++;
        return;
      }
      case "step_end":
        this.#steps++;
        this.#elapsed += num(data.elapsed_ms);
        return;
      case "error":
        return this.#message("error", data.message);
      case "done":
        this.#answer = null;
        this.#append(el("div", "meta usage", usageLine(this.#usage, this.#steps, this.#elapsed)));
        return this.onDone();
      case "failed":
        return this.#message("error", `failed: ${data.message}`);
      case "cancelled":
        return this.#message("error", "stopped");
    }
  }

  /** Shows chat `chat`: clears the log and subscribes to its events. */
  connect(chat: string): void {
    this.#close?.();
    this.#render();
    this.#log.replaceChildren();
    this.#cards.clear();
    this.#answer = null;
    this.#close = openEventStream(
      `/api/sessions/${encodeURIComponent(chat)}/events`,
      (event) => this.#handle(event.kind, JSON.parse(event.data) as Data),
      (message) => this.error(message),
    );
  }

  /** Shows an error line (a failed send). */
  error(message: string): void {
    this.#message("error", message);
  }
}
