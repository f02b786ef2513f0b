/**
 * The tape view: one tape's timeline (see `timeline.ts`) with section marks, tool cards pairing
 * call and result, links that load a spilled result from the tape's sidecar, and search.
 *
 * @module
 */
import { api } from "./auth.ts";
import { byId, el, show } from "./dom.ts";
import { errorLines, isErrorRecord } from "./error_text.ts";
import { localTime } from "./local_time.ts";
import { timeline, type TimelineItem, type WireEntry } from "./timeline.ts";

/** A tape date as local time, with the ISO date as its tooltip. */
function dateSpan(date: string, prefix = ""): HTMLElement {
  const span = el("span", "meta inline date", `${prefix}${localTime(date)}`);
  span.title = date;
  return span;
}

/** A tool result: an error record as readable lines, anything else as text or JSON. */
function resultNode(result: unknown): HTMLElement {
  return isErrorRecord(result)
    ? el("pre", "err", errorLines(result).join("\n"))
    : el("pre", "", show(result));
}

const path = (name: string): string => `/api/tapes/${encodeURIComponent(name)}`;

function spillLink(tape: string, handle: string): HTMLElement {
  const box = el("div", "spill");
  const button = el("button", "link", `load spilled output (${handle.slice(0, 8)}\u2026)`);
  button.type = "button";
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const spill = await api<{ text: string; bytes: number; chunks: number }>(
        `${path(tape)}/spill/${handle}`,
      );
      box.replaceChildren(
        el("div", "meta", `spilled output: ${spill.bytes} bytes in ${spill.chunks} chunks`),
        el("pre", "spilled", spill.text),
      );
    } catch (error) {
      box.append(el("div", "meta err", (error as Error).message));
      button.disabled = false;
    }
  });
  box.append(button);
  return box;
}

function itemNode(tape: string, item: TimelineItem): HTMLElement {
  if (item.type === "mark") {
    const cls = item.mark === "anchor" || item.mark === "handoff" ? "anchor" : item.mark;
    const li = el("li", `mark ${cls} ${item.mark}`);
    const head = el("div", "mark-title", item.title);
    if (item.entry) {
      head.append(dateSpan(item.entry.date, ` #${item.entry.id} \u00b7 `));
    }
    li.append(head);
    if (item.summary) li.append(el("div", "summary", item.summary));
    return li;
  }
  if (item.type === "tool") {
    const li = el("li", "entry tool-pair");
    const failed = item.done && isErrorRecord(item.result);
    const card = el("details", `tool${item.done ? "" : " pending"}${failed ? " failed" : ""}`);
    const status = item.done ? (item.spill ? "spilled" : failed ? "failed" : "done") : "no result";
    const summary = el(
      "summary",
      "",
      `tool ${item.name} \u00b7 ${status} \u00b7 ${item.callId} \u00b7 #${item.call.id}` +
        (item.resultEntry ? `\u2192#${item.resultEntry.id}` : ""),
    );
    summary.append(dateSpan(item.call.date, " \u00b7 "));
    card.append(summary, el("div", "meta", "arguments"), el("pre", "", show(item.arguments)));
    if (item.done) {
      card.append(el("div", "meta", failed ? "error" : "result"), resultNode(item.result));
    }
    if (item.spill) card.append(spillLink(tape, item.spill));
    li.append(card);
    return li;
  }
  const li = el("li", "entry");
  const card = el("details");
  const summary = el("summary", "", `#${item.entry.id} ${item.label}`);
  summary.append(dateSpan(item.entry.date, " \u00b7 "));
  card.append(summary, el("pre", "", show(item.entry.payload)));
  if (Object.keys(item.entry.meta).length) card.append(el("div", "meta", show(item.entry.meta)));
  li.append(card);
  return li;
}

/** Loads tape `name` (only entries matching `query` when given) into `#entries`. */
export async function showTape(name: string, label: string, query = ""): Promise<void> {
  byId("tape-name").textContent = label;
  const q = query ? `?q=${encodeURIComponent(query)}` : "";
  const { entries } = await api<{ entries: WireEntry[] }>(`${path(name)}/entries${q}`);
  const items = timeline(entries);
  byId("entries").replaceChildren(...items.map((item) => itemNode(name, item)));
  byId("tape-count").textContent = `${entries.length} entries${query ? " matching" : ""}`;
}
