/**
 * A `fetch` wrapper for OpenAI chat-completions responses that makes the AI SDK merge tool calls
 * the way Bub does (builtin spec §4.5): a call without an id gets `call_<index>`, and a name
 * streamed in pieces (`fs` + `_read`) reaches the SDK whole.
 *
 * Streams are rewritten event by event: a tool call's first delta is held back until its name is
 * complete (an arguments delta, another tool index, `finish_reason`, `[DONE]` or the end of the
 * stream arrives), then sent as one delta with the merged id, type, name and arguments; later
 * deltas of that call lose their id, type and name so the SDK only appends their arguments.
 * Every other event passes through byte for byte.
 *
 * @module
 */
import { isRecord } from "../../_internal/object.ts";
import { getLogger } from "../../_internal/log.ts";
import type { FetchLike } from "./_request_body.ts";

const logger = getLogger(["bub", "agent", "model"]);

type Json = Record<string, unknown>;

/** The merge state of one streamed tool call. */
interface CallState {
  index: number;
  id: string | null;
  type: string | null;
  name: string;
  arguments: string;
  /** Other delta fields (e.g. Gemini's `extra_content`), sent with the merged delta. */
  extra: Json;
  released: boolean;
}

function nonBlank(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** Merges streamed tool-call deltas per choice and rewrites the chunks that carry them. */
class ToolCallMerger {
  #choices = new Map<number, Map<number, CallState>>();
  #held = 0;
  #meta: Json = { object: "chat.completion.chunk" };

  /** Whether an event may need rewriting. */
  needsParse(event: string): boolean {
    return this.#held > 0 || event.includes("tool_calls");
  }

  /** The text to send for one event (`lines` with their line ends, then the blank line). */
  event(lines: string, blank: string): string {
    const fields = lines.split(/\r\n|\r|\n/).slice(0, -1);
    const data = fields.filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5)).join("\n");
    if (data.trim() === "[DONE]") return this.releaseAll() + lines + blank;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return lines + blank;
    }
    if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return lines + blank;
    for (const key of ["id", "object", "created", "model"]) {
      if (chunk[key] != null) this.#meta[key] = chunk[key];
    }
    let changed = false;
    chunk.choices.forEach((choice: unknown, position: number) => {
      if (isRecord(choice) && this.#choice(choice, position)) changed = true;
    });
    if (!changed) return lines + blank;
    const others = fields.filter((line) => !line.startsWith("data:"));
    return [...others, `data: ${JSON.stringify(chunk)}`].join("\n") + "\n" + blank;
  }

  /** Synthetic events releasing every held call (before `[DONE]` or at the end of the stream). */
  releaseAll(): string {
    if (this.#held === 0) return "";
    let out = "";
    for (const [index, calls] of this.#choices) {
      const released = this.#releaseHeld(calls, null);
      if (released.length === 0) continue;
      const delta = { tool_calls: released };
      const chunk = { ...this.#meta, choices: [{ index, delta, finish_reason: null }] };
      out += `data: ${JSON.stringify(chunk)}\n\n`;
    }
    return out;
  }

  /** Rewrites one choice's tool-call deltas in place; true when something changed. */
  #choice(choice: Json, position: number): boolean {
    const index = typeof choice.index === "number" ? choice.index : position;
    const delta = isRecord(choice.delta) ? choice.delta : null;
    const deltas = delta && Array.isArray(delta.tool_calls) ? delta.tool_calls : null;
    if (!deltas && (choice.finish_reason == null || this.#held === 0)) return false;
    let calls = this.#choices.get(index);
    if (!calls) this.#choices.set(index, calls = new Map());
    const out: unknown[] = [];
    let changed = false;
    for (const item of deltas ?? []) {
      if (!isRecord(item) || typeof item.index !== "number") {
        out.push(item);
        continue;
      }
      const released = this.#releaseHeld(calls, item.index);
      if (released.length > 0) changed = true;
      out.push(...released);
      const call = calls.get(item.index);
      if (call?.released) {
        const rest = this.#continuation(call, item);
        if (rest !== item) changed = true;
        if (rest) out.push(rest);
        continue;
      }
      changed = true;
      const state = call ?? this.#start(calls, item.index);
      merge(state, item);
      if (state.arguments !== "" && state.name !== "") out.push(this.#release(state));
    }
    if (choice.finish_reason != null) {
      const released = this.#releaseHeld(calls, null);
      if (released.length > 0) changed = true;
      out.push(...released);
    }
    if (!changed) return false;
    const target = delta ?? (choice.delta = {} as Json);
    if (out.length > 0) target.tool_calls = out;
    else delete target.tool_calls;
    return true;
  }

  #start(calls: Map<number, CallState>, index: number): CallState {
    const state: CallState = {
      index,
      id: null,
      type: null,
      name: "",
      arguments: "",
      extra: {},
      released: false,
    };
    calls.set(index, state);
    this.#held++;
    return state;
  }

  /** Releases the held calls of a choice except `keep`, by index. */
  #releaseHeld(calls: Map<number, CallState>, keep: number | null): Json[] {
    return [...calls.values()]
      .filter((call) => !call.released && call.index !== keep)
      .sort((a, b) => a.index - b.index)
      .map((call) => this.#release(call));
  }

  #release(call: CallState): Json {
    call.released = true;
    this.#held--;
    return {
      ...call.extra,
      index: call.index,
      id: call.id ?? `call_${call.index}`,
      type: call.type ?? "function",
      function: { name: call.name, arguments: call.arguments },
    };
  }

  /** A later delta of a released call without id, type and name (null when nothing is left). */
  #continuation(call: CallState, item: Json): Json | null {
    const fn = isRecord(item.function) ? item.function : {};
    if (!("id" in item) && !("type" in item) && !("name" in fn)) return item;
    const name = fn.name;
    if (typeof name === "string" && name !== "" && name !== call.name) {
      logger.debug("tool call {index} name piece {piece} after its arguments was ignored", {
        index: call.index,
        piece: name,
      });
    }
    const { id: _id, type: _type, function: _fn, ...rest } = item;
    const { name: _name, ...fnRest } = fn;
    const meaningful = Object.keys(rest).length > 1 || nonBlank(fnRest.arguments);
    return meaningful ? { ...rest, function: fnRest } : null;
  }
}

/** Applies one delta: id/type overwritten, name set or appended, arguments appended. */
function merge(call: CallState, item: Json): void {
  const { index: _index, id, type, function: fn, ...extra } = item;
  if (nonBlank(id)) call.id = id;
  if (typeof type === "string") call.type = type;
  Object.assign(call.extra, extra);
  if (!isRecord(fn)) return;
  if (typeof fn.name === "string") {
    call.name = call.name === "" || call.name === fn.name ? fn.name : call.name + fn.name;
  }
  if (typeof fn.arguments === "string") call.arguments += fn.arguments;
}

/** Splits decoded SSE text into events and passes each complete one through the merger. */
class SseEvents {
  #merger = new ToolCallMerger();
  #buffer = "";
  #event = "";

  /** The text to send for `text` (complete events only; the rest waits for more). */
  push(text: string, final = false): string {
    const buffer = this.#buffer + text;
    let out = "";
    let at = 0;
    while (at < buffer.length) {
      const cr = buffer.indexOf("\r", at);
      const lf = buffer.indexOf("\n", at);
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      if (end < 0) break;
      // A `\r` at the end of the buffer may be the first half of `\r\n`.
      if (end === cr && end === buffer.length - 1 && !final) break;
      const next = end === cr && buffer[end + 1] === "\n" ? end + 2 : end + 1;
      const raw = buffer.slice(at, next);
      if (end === at) out += this.#dispatch(raw);
      else this.#event += raw;
      at = next;
    }
    this.#buffer = buffer.slice(at);
    return out;
  }

  /** The text to send at the end: the unterminated rest, then any held tool calls. */
  end(): string {
    let out = this.push("", true);
    const tail = this.#event + this.#buffer;
    if (tail !== "" && this.#merger.needsParse(tail)) {
      out += this.#merger.event(/[\r\n]$/.test(tail) ? tail : `${tail}\n`, "\n");
    } else out += tail;
    return out + this.#merger.releaseAll();
  }

  #dispatch(blank: string): string {
    const event = this.#event;
    this.#event = "";
    if (event === "") return blank;
    return this.#merger.needsParse(event) ? this.#merger.event(event, blank) : event + blank;
  }
}

/**
 * `body` with {@link ToolCallMerger} applied to each complete SSE event, pulled from `body` as
 * the reader asks; cancelling it cancels `body` and an error of `body` errors it.
 */
function mergeToolCallStream(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const events = new SseEvents();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (true) {
        const next = await reader.read();
        const out = next.done
          ? events.push(decoder.decode()) + events.end()
          : events.push(decoder.decode(next.value, { stream: true }));
        if (out !== "") controller.enqueue(encoder.encode(out));
        if (next.done) return controller.close();
        if (out !== "") return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Gives every tool call of a non-streamed completion without an id the id `call_<index>`. */
function addMissingIds(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.choices)) return body;
  let changed = false;
  for (const choice of parsed.choices) {
    const message = isRecord(choice) && isRecord(choice.message) ? choice.message : null;
    if (!message || !Array.isArray(message.tool_calls)) continue;
    message.tool_calls.forEach((call: unknown, position: number) => {
      if (!isRecord(call) || nonBlank(call.id)) return;
      call.id = `call_${typeof call.index === "number" ? call.index : position}`;
      changed = true;
    });
  }
  return changed ? JSON.stringify(parsed) : body;
}

function isChatCompletions(input: string | URL | Request): boolean {
  const url = input instanceof Request ? input.url : String(input);
  return url.split(/[?#]/)[0]!.replace(/\/+$/, "").endsWith("/chat/completions");
}

/**
 * Wraps `fetch` so successful `/chat/completions` responses (SSE streams and JSON bodies) carry
 * tool calls merged as Bub specifies; other requests and error responses pass through unchanged.
 */
export function withToolCallMerge(fetchFn: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    if (!response.ok || !response.body || !isChatCompletions(input)) return response;
    const type = response.headers.get("content-type") ?? "";
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    const meta = { status: response.status, statusText: response.statusText, headers };
    if (type.includes("text/event-stream")) {
      return new Response(mergeToolCallStream(response.body), meta);
    }
    if (type.includes("json")) return new Response(addMissingIds(await response.text()), meta);
    return response;
  };
}
