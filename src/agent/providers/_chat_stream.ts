/**
 * Chat-completions stream chunks → `ModelEvent`s, with cheap shape checks instead of schema
 * validation. Tool-call deltas are merged in place as builtin spec §4.5 says: by index, a missing
 * id becomes `call_<index>`, a name streamed in pieces is joined until the arguments start, and
 * arguments are appended. Usage and the finish reason are reported the way the AI SDK's OpenAI
 * chat and OpenAI-compatible providers report them.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import type { ChatUsage, ModelEvent, ModelFinishReason } from "../model_client.ts";
import type { ModelId } from "./provider_presets.ts";
import type { ChatProtocol } from "./_chat_body.ts";
import { dropNulls } from "./_model_stream.ts";
import type { AnswerLimit } from "../_answer_limit.ts";

/** The merge state of one streamed tool call. */
interface CallState {
  index: number;
  id: string | null;
  name: string;
  arguments: string;
  /** Arguments started (the name is then final). */
  released: boolean;
  /** Arguments form complete JSON: later pieces are ignored (as the SDK does). */
  complete: boolean;
  /** The arguments' brackets and strings so far (see {@link closes}). */
  depth: number;
  opened: boolean;
  inString: boolean;
  escape: boolean;
  /** Their top-level container closed but they were not JSON: they never will be. */
  broken: boolean;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonBlank(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

const OPENAI_USAGE: Record<string, readonly string[] | null> = {
  prompt_tokens: null,
  completion_tokens: null,
  total_tokens: null,
  prompt_tokens_details: ["cached_tokens", "cache_write_tokens"],
  completion_tokens_details: [
    "reasoning_tokens",
    "accepted_prediction_tokens",
    "rejected_prediction_tokens",
  ],
};

/** The OpenAI provider's usage: only the fields its schema knows. */
function openaiUsage(usage: Json): Json {
  const out: Json = {};
  for (const [key, fields] of Object.entries(OPENAI_USAGE)) {
    const value = usage[key];
    if (value === undefined) continue;
    if (fields === null || !isRecord(value)) out[key] = value;
    else {
      const inner: Json = {};
      for (const field of fields) if (field in value) inner[field] = value[field];
      out[key] = inner;
    }
  }
  return out;
}

/**
 * Follows `piece` through the brackets and strings of a call's arguments (each character once):
 * true when the top-level container has just closed, so the arguments may be complete JSON. A
 * parse after every piece ending in `}` would make a long argument quadratic.
 */
function closes(call: CallState, piece: string): boolean {
  let closed = false;
  for (let i = 0; i < piece.length; i++) {
    const c = piece.charCodeAt(i);
    if (call.inString) {
      if (call.escape) call.escape = false;
      else if (c === 92) call.escape = true; // \
      else if (c === 34) call.inString = false; // "
    } else if (c === 34) call.inString = true;
    else if (c === 123 || c === 91) { // { [
      call.depth++;
      call.opened = true;
    } else if (c === 125 || c === 93) { // } ]
      call.depth--;
      closed = call.opened && call.depth === 0;
    } else if (c > 32) closed = false;
  }
  return closed && call.depth === 0 && !call.inString;
}

function finishReason(raw: string, refusal: boolean): ModelFinishReason {
  switch (raw) {
    case "stop":
      return refusal ? "content-filter" : "stop";
    case "length":
      return "length";
    case "content_filter":
      return "content-filter";
    case "function_call":
    case "tool_calls":
      return "tool-calls";
    default:
      return "other";
  }
}

/** Assembles one streamed chat completion. */
export class ChatStream {
  #protocol: ChatProtocol;
  #id: ModelId;
  #calls: CallState[] = [];
  #usage: Json | null = null;
  #rawFinish: string | null = null;
  #refusal = false;
  #limit: AnswerLimit | null;
  /** Whether a chunk carried output (text, refusal, tool calls or annotations). */
  output = false;

  /**
   * Creates the state of one stream.
   *
   * @param protocol which provider's reporting to follow
   * @param id the model, for error messages
   * @param limit the answer budget (text, reasoning and tool-call arguments), or null
   */
  constructor(protocol: ChatProtocol, id: ModelId, limit: AnswerLimit | null = null) {
    this.#protocol = protocol;
    this.#id = id;
    this.#limit = limit;
  }

  /** A provider error of this stream (`during` picks the message prefix). */
  error(message: string, during: "call" | "stream" = "stream", details: Json = {}): BubError {
    const name = `${this.#id.provider}:${this.#id.model}`;
    const prefix = during === "call"
      ? `Model call to ${name} failed`
      : `Model stream from ${name} failed`;
    return new BubError("provider", `${prefix}: ${message}`, { ...this.#id, ...details });
  }

  /**
   * Applies one `data` payload, pushing its events to `out`. Returns the error frame's message
   * when the chunk is an `{"error": ...}` frame, null otherwise.
   *
   * @throws BubError (provider) for a chunk that is not JSON or not a completion chunk, or when
   *   the answer passes its limit
   */
  apply(data: string, out: ModelEvent[]): string | null {
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw this.error(`malformed chunk (not JSON): ${data.slice(0, 200)}`);
    }
    if (!isRecord(chunk)) throw this.error(`malformed chunk: ${data.slice(0, 200)}`);
    if ("error" in chunk) {
      const error = chunk.error;
      const message = isRecord(error) && typeof error.message === "string"
        ? error.message
        : JSON.stringify(error);
      return message;
    }
    const choices = chunk.choices;
    if (!Array.isArray(choices)) throw this.error(`malformed chunk: ${data.slice(0, 200)}`);
    if (isRecord(chunk.usage)) this.#usage = chunk.usage;
    const choice = choices[0];
    if (!isRecord(choice)) return null;
    if (typeof choice.finish_reason === "string") this.#rawFinish = choice.finish_reason;
    const delta = choice.delta;
    if (!isRecord(delta)) return null;
    if (this.#protocol === "openai-compatible") {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === "string" && reasoning !== "") {
        this.#limit?.add(reasoning);
        out.push({ type: "reasoning", delta: reasoning });
      }
    }
    const content = delta.content;
    if (typeof content === "string") {
      if (content !== "") {
        this.#limit?.add(content);
        this.output = true;
        out.push({ type: "text", delta: content });
      }
    } else if (Array.isArray(content) && this.#protocol === "openai-compatible") {
      for (const part of content) {
        if (isRecord(part) && part.type === "text" && typeof part.text === "string" && part.text) {
          this.#limit?.add(part.text);
          this.output = true;
          out.push({ type: "text", delta: part.text });
        }
      }
    }
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      this.#limit?.add(delta.refusal);
      this.#refusal = this.output = true;
      out.push({ type: "text", delta: delta.refusal });
    }
    if (Array.isArray(delta.tool_calls)) {
      if (delta.tool_calls.length > 0) this.output = true;
      for (const item of delta.tool_calls) if (isRecord(item)) this.#toolDelta(item);
    }
    if (Array.isArray(delta.annotations) && delta.annotations.length > 0) this.output = true;
    return null;
  }

  #toolDelta(item: Json): void {
    const index = item.index;
    if (typeof index !== "number") throw this.error("malformed tool call delta (no index)");
    let call = this.#calls.find((candidate) => candidate.index === index);
    if (!call) {
      call = {
        index,
        id: null,
        name: "",
        arguments: "",
        released: false,
        complete: false,
        depth: 0,
        opened: false,
        inString: false,
        escape: false,
        broken: false,
      };
      this.#calls.push(call);
    }
    const fn = isRecord(item.function) ? item.function : null;
    if (!call.released) {
      if (nonBlank(item.id)) call.id = item.id;
      const name = fn?.name;
      if (typeof name === "string") {
        this.#limit?.add(name);
        call.name = call.name === "" || call.name === name ? name : call.name + name;
      }
    }
    const piece = fn?.arguments;
    if (typeof piece !== "string" || piece === "" || call.complete) return;
    this.#limit?.add(piece);
    call.arguments += piece;
    if (call.name !== "") call.released = true;
    if (closes(call, piece) && call.released && !call.broken) {
      try {
        JSON.parse(call.arguments);
        call.complete = true;
      } catch {
        call.broken = true;
      }
    }
  }

  /**
   * The closing events: the assembled tool calls (by index), usage when reported, the finish.
   *
   * @throws BubError (provider) when an OpenAI-compatible stream ended without a finish reason
   */
  finish(out: ModelEvent[]): void {
    const calls = [...this.#calls].sort((a, b) => a.index - b.index);
    calls.forEach((call, position) => {
      out.push({
        type: "tool_call",
        index: position,
        id: call.id ?? `call_${call.index}`,
        name: call.name,
        arguments: call.arguments,
      });
    });
    if (this.#rawFinish === null && this.#protocol === "openai-compatible") {
      throw this.error("Response stream ended without a finish reason.");
    }
    const usage = this.#usageEvent();
    if (usage) out.push({ type: "usage", usage });
    out.push(
      this.#rawFinish === null ? { type: "finish", reason: "interrupted", rawReason: null } : {
        type: "finish",
        reason: finishReason(this.#rawFinish, this.#refusal),
        rawReason: this.#rawFinish,
      },
    );
  }

  #usageEvent(): ChatUsage | null {
    if (this.#usage === null) return null;
    const raw = this.#protocol === "openai-chat" ? openaiUsage(this.#usage) : this.#usage;
    if (typeof raw.prompt_tokens === "number") return dropNulls(raw) as ChatUsage;
    const prompt = 0;
    const completion = typeof raw.completion_tokens === "number" ? raw.completion_tokens : 0;
    const details = (key: string, field: string) => {
      const value = isRecord(raw[key]) ? (raw[key] as Json)[field] : undefined;
      return typeof value === "number" ? value : 0;
    };
    return {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: details("prompt_tokens_details", "cached_tokens") },
      completion_tokens_details: {
        reasoning_tokens: details("completion_tokens_details", "reasoning_tokens"),
      },
    };
  }
}
