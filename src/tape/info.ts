/**
 * Tape statistics (`Tape.info`, §5.7 / §4.8) and the entries of one recorded model call
 * (`Tape.recordChat`, §4.7).
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { BubError, type BubErrorDict } from "../kernel/errors.ts";
import { createEntry, errorEntry, type TapeEntry } from "./entry.ts";

/**
 * What `Tape.info()` reports.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("notes");
 * await tape.appendEvent("note", { text: "hi" });
 * const info = await tape.info();
 * assert.equal(info.entries, 1);
 * assert.equal(info.lastAnchor, null);
 * ```
 */
export interface TapeInfo {
  /** The tape name. */
  name: string;
  /** Entries of any kind. */
  entries: number;
  /** Anchor count. */
  anchors: number;
  /** The last anchor's name, or null. */
  lastAnchor: string | null;
  /** Entries after the last anchor (all entries when there is none). */
  entriesSinceLastAnchor: number;
  /** `usage.total_tokens` of the latest `run` event that has an integer one, or null. */
  lastTokenUsage: number | null;
  /** `cached_tokens / prompt_tokens` of that event, or null. */
  lastTokenCacheHitRate: number | null;
  /**
   * The tape's interrupted turns that can be resumed (fork journals a dead process left, see
   * `interrupted.ts`), oldest first; absent where nobody looked.
   */
  resumableTurns?: ResumableTurnInfo[];
}

/**
 * One resumable turn of {@link TapeInfo}.
 *
 * @example
 * ```ts
 * import type { ResumableTurnInfo } from "@bub/core/tape";
 * const turn: ResumableTurnInfo = { fork: "3f2a9c1e-0000-4000-8000-000000000000", step: 2 };
 * ```
 */
export interface ResumableTurnInfo {
  /** The fork id. */
  fork: string;
  /** The step it stopped in. */
  step: number;
}

function _int(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

/** Computes {@link TapeInfo} from every entry of a tape (and its resumable turns, when known). */
export function tapeInfo(
  name: string,
  entries: readonly TapeEntry[],
  resumableTurns?: ResumableTurnInfo[],
): TapeInfo {
  let lastAnchorAt = -1;
  let anchors = 0;
  entries.forEach((entry, i) => {
    if (entry.kind === "anchor") {
      anchors++;
      lastAnchorAt = i;
    }
  });
  const last = entries[lastAnchorAt];
  let lastTokenUsage: number | null = null;
  let lastTokenCacheHitRate: number | null = null;
  for (let i = entries.length - 1; i >= 0; i--) {
    const { kind, payload } = entries[i]!;
    if (kind !== "event" || payload.name !== "run" || !isRecord(payload.data)) continue;
    const usage = payload.data.usage;
    if (!isRecord(usage) || !_int(usage.total_tokens)) continue;
    lastTokenUsage = usage.total_tokens;
    const details = usage.prompt_tokens_details;
    const cached = isRecord(details) ? details.cached_tokens : undefined;
    if (_int(usage.prompt_tokens) && usage.prompt_tokens > 0 && _int(cached)) {
      lastTokenCacheHitRate = cached / usage.prompt_tokens;
    }
    break;
  }
  return {
    name,
    entries: entries.length,
    anchors,
    lastAnchor: last ? String(last.payload.name ?? "-") : null,
    entriesSinceLastAnchor: entries.length - lastAnchorAt - 1,
    lastTokenUsage,
    lastTokenCacheHitRate,
    ...(resumableTurns ? { resumableTurns } : {}),
  };
}

function _resumable(turns: readonly ResumableTurnInfo[]): string {
  if (turns.length === 0) return "none";
  const each = turns.map((turn) => `${turn.fork.slice(0, 8)} step ${turn.step}`);
  return `${turns.length} (${each.join(", ")})`;
}

/**
 * The lines the `tape.info` tool prints (`name: ...`, `last_token_cache_hit_rate: 37.50%` or
 * `none`), then, when the info has them, `resumable_turns: none` or `resumable_turns: 1
 * (3f2a9c1e step 2)` (fork id prefix and step of each interrupted turn). A missing value is
 * `none`, not Python's `None` (spec/builtin.md had it; a person reads these lines through
 * `,tape.info` too).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatTapeInfo } from "@bub/core/tape";
 * const text = formatTapeInfo({
 *   name: "notes",
 *   entries: 3,
 *   anchors: 1,
 *   lastAnchor: "session/start",
 *   entriesSinceLastAnchor: 2,
 *   lastTokenUsage: null,
 *   lastTokenCacheHitRate: 0.375,
 * });
 * assert.match(text, /^name: notes\n/);
 * assert.match(text, /last_token_usage: none\nlast_token_cache_hit_rate: 37\.50%$/);
 * ```
 */
export function formatTapeInfo(info: TapeInfo): string {
  const rate = info.lastTokenCacheHitRate === null
    ? "none"
    : `${(info.lastTokenCacheHitRate * 100).toFixed(2)}%`;
  return [
    `name: ${info.name}`,
    `entries: ${info.entries}`,
    `anchors: ${info.anchors}`,
    `last_anchor: ${info.lastAnchor ?? "none"}`,
    `entries_since_last_anchor: ${info.entriesSinceLastAnchor}`,
    `last_token_usage: ${info.lastTokenUsage ?? "none"}`,
    `last_token_cache_hit_rate: ${rate}`,
    ...(info.resumableTurns ? [`resumable_turns: ${_resumable(info.resumableTurns)}`] : []),
  ].join("\n");
}

/**
 * What one model call contributes to the tape (§4.7).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import type { RecordChatOptions } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("chat");
 * const call: RecordChatOptions = {
 *   runId: "run-1",
 *   newMessages: [{ role: "user", content: "hi" }],
 *   responseText: "hello",
 * };
 * await tape.recordChat(call);
 * const kinds = (await tape.query().all()).map((entry) => entry.kind);
 * assert.deepEqual(kinds.filter((kind) => kind === "message").length, 2);
 * ```
 */
export interface RecordChatOptions {
  /** The `run-...` id put in every entry's meta. */
  runId: string;
  /** The full system prompt (recorded when non-empty). */
  systemPrompt?: string | null;
  /** A context error (recorded right after the system prompt). */
  contextError?: BubError | BubErrorDict | null;
  /** Steering messages, then the prompt. */
  newMessages?: readonly Record<string, unknown>[];
  /** The assistant text (recorded when not null). */
  responseText?: string | null;
  /** Serialized tool calls. */
  toolCalls?: readonly unknown[] | null;
  /** Tool results (recorded when not null). */
  toolResults?: readonly unknown[] | null;
  /** The call's error. */
  error?: BubError | BubErrorDict | null;
  /** Usage; when absent it is taken from `response.usage`. */
  usage?: Record<string, unknown> | null;
  /** The raw provider response. */
  response?: unknown;
  /** The provider name. */
  provider?: string | null;
  /** The model name. */
  model?: string | null;
}

function _dict(error: BubError | BubErrorDict): BubErrorDict {
  return BubError.isInstance(error) ? error.asDict() : error;
}

function _dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(_dropNulls);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && item !== undefined) out[key] = _dropNulls(item);
  }
  return out;
}

/** The entries of one model call, in the order of §4.7. */
export function buildChatEntries(options: RecordChatOptions): TapeEntry[] {
  const meta = { run_id: options.runId };
  const out: TapeEntry[] = [];
  if (options.systemPrompt) {
    out.push(createEntry("system", { content: options.systemPrompt }, meta));
  }
  if (options.contextError) out.push(errorEntry(_dict(options.contextError), meta));
  for (const message of options.newMessages ?? []) {
    out.push(createEntry("message", { ...message }, meta));
  }
  if (options.toolCalls?.length) {
    out.push(createEntry("tool_call", { calls: [...options.toolCalls] }, meta));
  }
  if (options.toolResults !== null && options.toolResults !== undefined) {
    out.push(createEntry("tool_result", { results: [...options.toolResults] }, meta));
  }
  if (options.error && options.error !== options.contextError) {
    out.push(errorEntry(_dict(options.error), meta));
  }
  if (options.responseText !== null && options.responseText !== undefined) {
    out.push(createEntry("message", { role: "assistant", content: options.responseText }, meta));
  }
  const status = options.error ? "error" : "ok";
  const fromResponse = isRecord(options.response) ? options.response.usage : undefined;
  const usage = options.usage ?? (isRecord(fromResponse) ? _dropNulls(fromResponse) : null);
  const { provider, model } = options;
  let data: Record<string, unknown>;
  if (usage && provider && model) {
    // One literal (the usual case): the stored copy is spread from it, and V8 lays a spread copy
    // out as its source (a literal grown key by key keeps its extra keys out of line).
    data = { status, usage, provider, model };
  } else {
    data = { status };
    if (usage) data.usage = usage;
    if (provider) data.provider = provider;
    if (model) data.model = model;
  }
  out.push(createEntry("event", { name: "run", data }, meta));
  return out;
}
