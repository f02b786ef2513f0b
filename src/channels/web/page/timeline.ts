/**
 * A tape's entries as a timeline (pure, no DOM): anchors and handoffs become section marks with
 * their summaries, each tool call is paired with its result (one item per call id), a spilled
 * result names its sidecar handle, each agent turn (written on a fork of the tape and merged
 * back when it ended) is bracketed by a fork mark at its `loop.start` event and a merge mark,
 * and `sidecar.merge` events are merge marks.
 *
 * @module
 */

/** A tape entry as the API sends it. */
export interface WireEntry {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  meta: Record<string, unknown>;
  date: string;
}

/** One item of the timeline. */
export type TimelineItem =
  | {
    type: "mark";
    mark: "anchor" | "handoff" | "fork" | "merge";
    title: string;
    summary: string;
    entry: WireEntry | null;
  }
  | {
    type: "tool";
    callId: string;
    name: string;
    arguments: unknown;
    /** Has a result entry. */
    done: boolean;
    result: unknown;
    /** The spill handle when the result was spilled to the sidecar, else null. */
    spill: string | null;
    call: WireEntry;
    resultEntry: WireEntry | null;
  }
  | { type: "entry"; label: string; entry: WireEntry };

const SPILLED = /\[tool output spilled: [^\]\n]*handle: ([0-9a-f]{32})\]/;

/** The spill handle a tool result refers to, or null. */
export function spillHandle(result: unknown): string | null {
  return typeof result === "string" ? SPILLED.exec(result)?.[1] ?? null : null;
}

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" ? value as Record<string, unknown> : {};

/** An anchor state's `summary`, else its plain fields (`reason: …`), at most 300 characters. */
function summaryOf(state: unknown): string {
  const fields = record(state);
  if (typeof fields.summary === "string") return fields.summary;
  const text = Object.entries(fields)
    .filter(([, value]) => ["string", "number", "boolean"].includes(typeof value))
    .map(([key, value]) => `${key}: ${value}`)
    .join(" \u00b7 ");
  return text.length > 300 ? `${text.slice(0, 300)}\u2026` : text;
}

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** A one-line label of an entry that is neither a mark nor a tool call. */
export function entryLabel(entry: WireEntry): string {
  const payload = entry.payload;
  if (entry.kind === "event") return `event ${payload.name}`;
  if (entry.kind === "message" && typeof payload.role === "string") {
    return `message ${payload.role}`;
  }
  if (entry.kind === "tool_result" && Array.isArray(payload.results)) {
    return `tool_result (${payload.results.length})`;
  }
  return entry.kind;
}

/** The timeline of `entries` (in tape order). */
export function timeline(entries: readonly WireEntry[]): TimelineItem[] {
  const items: TimelineItem[] = [];
  const tools = new Map<string, Extract<TimelineItem, { type: "tool" }>>();
  let pending: string[] = [];
  let turn: number | null = null;
  const endTurn = (): void => {
    if (turn === null) return;
    const count = items.filter((item, i) => i > turn! && item.type !== "mark").length;
    items.push({
      type: "mark",
      mark: "merge",
      title: "turn merged back",
      summary: `${count} item${count === 1 ? "" : "s"} written on the fork`,
      entry: null,
    });
    turn = null;
  };
  for (const entry of entries) {
    const { kind, payload } = entry;
    if (kind === "event" && payload.name === "loop.start") {
      endTurn();
      const data = record(payload.data);
      const prompt = typeof data.prompt === "string" ? data.prompt : "";
      items.push({
        type: "mark",
        mark: "fork",
        title: `turn on a fork of the tape${data.model ? ` \u00b7 ${data.model}` : ""}`,
        summary: prompt.length > 200 ? `${prompt.slice(0, 200)}\u2026` : prompt,
        entry,
      });
      turn = items.length - 1;
      continue;
    }
    if (kind === "anchor") {
      items.push({
        type: "mark",
        mark: "anchor",
        title: `anchor ${payload.name}`,
        summary: summaryOf(payload.state),
        entry,
      });
    } else if (kind === "event" && payload.name === "handoff") {
      const data = record(payload.data);
      const last = items.at(-1);
      if (
        last?.type === "mark" && last.mark === "anchor" && last.entry?.payload.name === data.name
      ) {
        last.mark = "handoff";
        last.title = `handoff ${data.name}`;
        continue;
      }
      items.push({
        type: "mark",
        mark: "handoff",
        title: `handoff ${data.name ?? ""}`.trim(),
        summary: summaryOf(data.state),
        entry,
      });
    } else if (kind === "event" && payload.name === "sidecar.merge") {
      const data = record(payload.data);
      items.push({
        type: "mark",
        mark: "merge",
        title: `merge ${data.tape ?? ""} ${data.status ?? ""}`.trim(),
        summary: typeof data.error === "string" ? data.error : "",
        entry,
      });
    } else if (kind === "tool_call" && Array.isArray(payload.calls)) {
      pending = [];
      payload.calls.forEach((raw, i) => {
        const call = record(raw);
        const fn = record(call.function);
        const callId = typeof call.id === "string" && call.id ? call.id : `${entry.id}:${i}`;
        const item = {
          type: "tool" as const,
          callId,
          name: String(fn.name ?? "?"),
          arguments: parseArguments(fn.arguments),
          done: false,
          result: undefined,
          spill: null,
          call: entry,
          resultEntry: null,
        };
        tools.set(callId, item);
        pending.push(callId);
        items.push(item);
      });
    } else if (kind === "tool_result" && Array.isArray(payload.results) && pending.length) {
      payload.results.forEach((result, i) => {
        const item = tools.get(pending[i] ?? "");
        if (!item) return;
        item.done = true;
        item.result = result;
        item.spill = spillHandle(result);
        item.resultEntry = entry;
      });
      pending = [];
    } else {
      items.push({ type: "entry", label: entryLabel(entry), entry });
    }
  }
  endTurn();
  return items;
}
