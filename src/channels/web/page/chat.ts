/**
 * The chat view: the event stream of one chat rendered as messages (answers as Markdown, updated
 * per streamed delta), tool calls as collapsible cards (arguments, result or error, duration;
 * one card per call of a turn's step, since providers reuse call ids across turns; a call held
 * for approval gets Approve / Always / Deny buttons) and the token usage of each turn.
 *
 * @module
 */
import { approvalBar, approvalIds } from "./approval_buttons.ts";
import { byId, el, show } from "./dom.ts";
import { errorLines } from "./error_text.ts";
import { openEventStream } from "./event_stream.ts";
import { HistoryView } from "./history_view.ts";
import { renderMarkdown } from "./markdown_dom.ts";

type Data = Record<string, unknown>;

interface Card {
  card: HTMLDetailsElement;
  summary: HTMLElement;
  name: string;
  /** Has its `tool_end` (or was marked stopped). */
  ended: boolean;
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

/**
 * The key of a tool card: the turn, the step within it and the call id (a provider may send the
 * same id, e.g. `call_1`, in every turn and every step).
 */
export function cardKey(turn: number, step: number, data: Data): string {
  return `${turn}:${step}:${String(data.call_id ?? data.name)}`;
}

/** A sent message's text and a line per file sent with it (`uploads` of the event). */
export function withUploads(data: Data): string {
  const uploads = Array.isArray(data.uploads) ? data.uploads as Data[] : [];
  const lines = uploads.map((file) => `\u{1f4ce} ${file.name} (${file.type})`);
  const text = String(data.content ?? "");
  return [text, ...lines].filter((line) => line !== "").join("\n");
}

/** Lines of an error shown at once; longer output is folded under "more". */
const SHOWN_ERROR_LINES = 12;

/** An error shown in a card: the message and its causes, long output folded. */
function errorBlock(error: unknown): HTMLElement {
  const lines = errorLines(error);
  const rest = lines.splice(SHOWN_ERROR_LINES);
  const block = el("div", "err-block");
  block.append(el("pre", "err", lines.join("\n")));
  if (rest.length) {
    const more = el("details", "causes");
    more.append(el("summary", "", `${rest.length} more lines`), el("pre", "err", rest.join("\n")));
    block.append(more);
  }
  return block;
}

/** The chat view over `#log`; `connect(chat)` (re)subscribes to a chat's events. */
export class ChatView {
  #log = byId("log");
  #close: (() => void) | null = null;
  #answer: HTMLElement | null = null;
  #answerText = "";
  #frame: number | null = null;
  #cards = new Map<string, Card>();
  /** Turns seen (each `turn_start`), for the card keys. */
  #turn = 0;
  #usage: TurnUsage = { prompt: 0, completion: 0, total: 0, cached: 0, calls: 0 };
  #steps = 0;
  #elapsed = 0;
  /** Called after each turn ends, answered, failed or stopped (the page refreshes the tape list). */
  onDone: () => void = () => {};
  /** Sends a comma command as the user's message (the approval buttons use it). */
  post: (content: string) => Promise<void> = () => Promise.resolve();
  /** The text of the current turn (its approval ids get buttons when it ends). */
  #turnText = "";
  /** Cards of the current turn's calls held for approval, in order. */
  #held: Card[] = [];

  #append(node: HTMLElement): void {
    this.#log.append(node);
    this.#log.scrollTop = this.#log.scrollHeight;
  }

  #message(cls: string, text: unknown): void {
    this.#answer = null;
    this.#append(el("div", `msg ${cls}`, text));
  }

  #toolCard(data: Data): Card {
    const key = cardKey(this.#turn, this.#steps, data);
    const found = this.#cards.get(key);
    if (found) return found;
    const card = el("details", "tool running");
    const summary = el("summary", "", `tool ${data.name} \u2026`);
    card.append(summary, el("div", "meta", "arguments"), el("pre", "", show(data.arguments)));
    const entry = { card, summary, name: String(data.name), ended: false };
    this.#cards.set(key, entry);
    this.#answer = null;
    this.#append(card);
    return entry;
  }

  #toolEnd(data: Data): void {
    const entry = this.#toolCard(data);
    const { card, summary } = entry;
    const ok = data.ok === true;
    entry.ended = true;
    summary.textContent = `tool ${data.name} ${ok ? "ok" : "failed"} (${
      Math.round(num(data.duration_ms))
    } ms)`;
    card.classList.remove("running");
    card.classList.toggle("failed", !ok);
    card.append(
      el("div", "meta", ok ? "result" : "error"),
      ok ? el("pre", "", show(data.result)) : errorBlock(data.error),
    );
  }

  /** Marks the cards still running as stopped (the turn was cancelled or failed). */
  #stopCards(how: string): void {
    for (const entry of this.#cards.values()) {
      if (entry.ended) continue;
      entry.ended = true;
      entry.summary.textContent = `tool ${entry.name} ${how}`;
      entry.card.classList.remove("running");
      entry.card.classList.add("stopped");
    }
  }

  /** Cards for calls held for approval (a step's `final` names them). */
  #heldCards(held: unknown): void {
    if (!Array.isArray(held)) return;
    for (const call of held as Data[]) {
      const entry = this.#toolCard({
        call_id: call.callId,
        name: call.tool,
        arguments: call.arguments,
      });
      entry.ended = true;
      entry.summary.textContent = `tool ${entry.name} waits for approval`;
      entry.card.classList.replace("running", "waiting");
      entry.card.open = true;
      this.#held.push(entry);
    }
  }

  /** Puts the approval buttons on the held calls' cards (or after the answer). */
  #approvalButtons(): void {
    approvalIds(this.#turnText).forEach((id, i) => {
      const bar = approvalBar(id, (content) => this.post(content));
      const card = this.#held[i];
      if (card) card.card.append(bar);
      else this.#append(bar);
    });
    this.#held = [];
  }

  #text(delta: string): void {
    this.#turnText += delta;
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

  #startTurn(data: Data): void {
    this.#turn++;
    this.#turnText = "";
    this.#held = [];
    this.#usage = { prompt: 0, completion: 0, total: 0, cached: 0, calls: 0 };
    this.#steps = 0;
    this.#elapsed = 0;
    this.#message("user", withUploads(data));
  }

  #handle(kind: string, data: Data): void {
    if (kind !== "text") this.#render();
    switch (kind) {
      case "turn_start":
        return this.#startTurn(data);
      case "steer":
        return this.#message("user steer", withUploads(data));
      case "text":
        return this.#text(String(data.delta ?? ""));
      case "tool_start":
        this.#toolCard(data);
        return;
      case "tool_end":
        return this.#toolEnd(data);
      case "final":
        return this.#heldCards(data.held);
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
        this.#approvalButtons();
        this.#answer = null;
        this.#append(el("div", "meta usage", usageLine(this.#usage, this.#steps, this.#elapsed)));
        return this.onDone();
      case "failed":
        this.#stopCards("not finished");
        this.#message("error", `failed: ${errorLines(data).join("\n")}`);
        return this.onDone();
      case "cancelled":
        this.#stopCards("stopped");
        this.#message("error", "stopped");
        return this.onDone();
    }
  }

  /**
   * Shows chat `chat`: clears the log, draws its finished turns from the tape, then subscribes
   * to its events (a running turn's events so far come first).
   */
  connect(chat: string): void {
    this.#close?.();
    this.#render();
    this.#log.replaceChildren();
    this.#cards.clear();
    this.#answer = null;
    const history = new HistoryView(this.#log, chat);
    let unsubscribe: (() => void) | null = null;
    let left = false;
    this.#close = () => {
      left = true;
      history.close();
      unsubscribe?.();
    };
    history.load().catch((error) => this.error((error as Error).message)).finally(() => {
      if (!left) unsubscribe = this.#subscribe(chat);
    });
  }

  /** Subscribes to chat `chat`'s events; returns the unsubscribe function. */
  #subscribe(chat: string): () => void {
    return openEventStream(
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
