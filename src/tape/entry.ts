/**
 * Tape entries: the immutable records a tape is made of, and their constructors.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { redactKnownSecrets, redactKnownSecretsDeep } from "../_internal/secrets.ts";
import type { BubErrorDict } from "../kernel/errors.ts";
import { isLastIsoNow, isoNow, parseIsoMicros } from "../_internal/utc_text.ts";

/**
 * One record of a tape. Stores assign `id` (per tape, from 1); constructors leave it 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, TapeQuery, type TapeEntry } from "@bub/core";
 * import { messageEntry } from "@bub/core/tape";
 * const store = new InMemoryTapeStore();
 * await store.append("t", messageEntry({ role: "user", content: "hi" }));
 * const [entry]: TapeEntry[] = await new TapeQuery("t", store).all();
 * assert.equal(entry?.kind, "message");
 * assert.equal(entry?.id, 1); // the store numbers entries from 1
 * ```
 */
export interface TapeEntry {
  /** Store-assigned id, per tape, starting at 1; 0 before storage. */
  readonly id: number;
  /** `message`, `system`, `anchor`, `tool_call`, `tool_result`, `error`, `event` or another kind. */
  readonly kind: string;
  /** The kind-specific data. */
  readonly payload: Record<string, unknown>;
  /** Bookkeeping keys (`run_id`, `context`, `spill_handle`, `spill_chunk`...). */
  readonly meta: Record<string, unknown>;
  /** ISO-8601 UTC creation time, e.g. `2026-08-21T14:51:51.123456+00:00`. */
  readonly date: string;
}

/**
 * Entry metadata.
 *
 * @example
 * ```ts
 * import { messageEntry, type TapeMeta } from "@bub/core/tape";
 * const meta: TapeMeta = { run_id: "run-1", channel: "cli" };
 * const entry = messageEntry({ role: "user", content: "hi" }, meta);
 * ```
 */
export type TapeMeta = Record<string, unknown>;

/**
 * An entry of any kind with id 0 and date now (or `date`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createEntry } from "@bub/core/tape";
 * const entry = createEntry("event", { name: "ping" }, { run_id: "run-1" });
 * assert.ok(entry.id === 0 && entry.meta.run_id === "run-1");
 * ```
 */
export function createEntry(
  kind: string,
  payload: Record<string, unknown>,
  meta: TapeMeta = {},
  date: string = isoNow(),
): TapeEntry {
  return { id: 0, kind, payload, meta: { ...meta }, date };
}

/**
 * A `message` entry holding a copy of an OpenAI-style chat message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { messageEntry } from "@bub/core/tape";
 * const entry = messageEntry({ role: "user", content: "hi" });
 * assert.equal(entry.kind, "message");
 * assert.deepEqual(entry.payload, { role: "user", content: "hi" });
 * ```
 */
export function messageEntry(message: Record<string, unknown>, meta: TapeMeta = {}): TapeEntry {
  return createEntry("message", { ...message }, meta);
}

/**
 * A `system` entry `{content}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { systemEntry } from "@bub/core/tape";
 * assert.equal(systemEntry("Be brief.").kind, "system");
 * ```
 */
export function systemEntry(content: string, meta: TapeMeta = {}): TapeEntry {
  return createEntry("system", { content }, meta);
}

/**
 * An `anchor` entry `{name}` plus a copy of `state` when one is given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { anchorEntry } from "@bub/core/tape";
 * const anchor = anchorEntry("handoff/1", { summary: "Fixed the build" });
 * assert.equal(anchor.kind, "anchor");
 * assert.equal(anchor.payload.name, "handoff/1");
 * ```
 */
export function anchorEntry(
  name: string,
  state?: Record<string, unknown> | null,
  meta: TapeMeta = {},
): TapeEntry {
  const payload: Record<string, unknown> = { name };
  if (state !== undefined && state !== null) payload.state = { ...state };
  return createEntry("anchor", payload, meta);
}

/**
 * A `tool_call` entry `{calls}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolCallEntry } from "@bub/core/tape";
 * const entry = toolCallEntry([{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }]);
 * assert.equal(entry.kind, "tool_call");
 * ```
 */
export function toolCallEntry(calls: readonly unknown[], meta: TapeMeta = {}): TapeEntry {
  return createEntry("tool_call", { calls: [...calls] }, meta);
}

/**
 * A `tool_result` entry `{results}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolResultEntry } from "@bub/core/tape";
 * assert.equal(toolResultEntry(["README.md"]).kind, "tool_result");
 * ```
 */
export function toolResultEntry(results: readonly unknown[], meta: TapeMeta = {}): TapeEntry {
  return createEntry("tool_result", { results: [...results] }, meta);
}

/**
 * An `error` entry holding a BubError dict (`details` only when non-empty), with the known
 * secrets (`_internal/secrets.ts`: a provider's echo of the API key...) redacted from its message
 * and details.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BubError } from "@bub/core";
 * import { errorEntry } from "@bub/core/tape";
 * const entry = errorEntry(new BubError("provider", "Rate limited").asDict());
 * assert.equal(entry.kind, "error");
 * assert.equal(entry.payload.message, "Rate limited");
 * ```
 */
export function errorEntry(error: BubErrorDict, meta: TapeMeta = {}): TapeEntry {
  const message = redactKnownSecrets(error.message);
  const payload: Record<string, unknown> = { kind: error.kind, message };
  if (error.details && Object.keys(error.details).length > 0) {
    payload.details = redactKnownSecretsDeep(error.details);
  }
  return createEntry("error", payload, meta);
}

/**
 * An `event` entry `{name}` plus a copy of `data` when given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { eventEntry } from "@bub/core/tape";
 * const entry = eventEntry("loop.step", { step: 1, status: "ok" });
 * assert.equal(entry.kind, "event");
 * assert.equal(entry.payload.name, "loop.step");
 * ```
 */
export function eventEntry(
  name: string,
  data?: Record<string, unknown> | null,
  meta: TapeMeta = {},
): TapeEntry {
  const payload: Record<string, unknown> = { name };
  if (data !== undefined && data !== null) payload.data = { ...data };
  return createEntry("event", payload, meta);
}

function _describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "string" ? JSON.stringify(value) : typeof value;
}

// The last date found valid: the entries of one step mostly share their date (see `isoNow`).
let lastValidDate: string | null = null;

function _validDate(date: string): boolean {
  if (date === lastValidDate || isLastIsoNow(date)) return true;
  if (parseIsoMicros(date) === null) return false;
  lastValidDate = date;
  return true;
}

/**
 * Checks a tape name and an entry before it is stored; throws a `TypeError` naming the tape.
 * Returns the entry with `meta` defaulted to `{}`.
 */
export function validateEntry(tape: string, entry: unknown): TapeEntry {
  validateTapeName(tape);
  if (
    isRecord(entry) && typeof entry.kind === "string" && entry.kind !== "" &&
    isRecord(entry.payload) && (entry.meta == null || isRecord(entry.meta)) &&
    typeof entry.date === "string" && _validDate(entry.date)
  ) {
    return {
      id: 0,
      kind: entry.kind,
      payload: entry.payload,
      meta: entry.meta ?? {},
      date: entry.date,
    };
  }
  const prefix = `Cannot append entry to tape ${JSON.stringify(tape)}`;
  if (!isRecord(entry)) {
    throw new TypeError(`${prefix}: entry must be an object, got ${_describe(entry)}`);
  }
  if (typeof entry.kind !== "string" || entry.kind === "") {
    throw new TypeError(`${prefix}: kind must be a non-empty string, got ${_describe(entry.kind)}`);
  }
  if (!isRecord(entry.payload)) {
    throw new TypeError(`${prefix}: payload must be an object, got ${_describe(entry.payload)}`);
  }
  const meta = entry.meta ?? {};
  if (!isRecord(meta)) {
    throw new TypeError(`${prefix}: meta must be an object, got ${_describe(meta)}`);
  }
  if (typeof entry.date !== "string" || !_validDate(entry.date)) {
    throw new TypeError(
      `${prefix}: date must be an ISO-8601 date-time, got ${_describe(entry.date)}`,
    );
  }
  return { id: 0, kind: entry.kind, payload: entry.payload, meta, date: entry.date };
}

// The last tape name found valid: a turn appends to one tape.
let lastValidTape: string | null = null;

/** Throws a `TypeError` unless `tape` is a usable tape name (non-empty, no path separators). */
export function validateTapeName(tape: unknown): asserts tape is string {
  if (tape === lastValidTape) return;
  if (
    typeof tape !== "string" || tape === "" || tape === "." || tape === ".." ||
    /[/\\\0]/.test(tape)
  ) {
    throw new TypeError(
      `Invalid tape name: expected a non-empty string without path separators, got ${
        _describe(tape)
      }`,
    );
  }
  lastValidTape = tape;
}
