/**
 * Envelope helpers: read any message object (plain object, `Map`, class instance) without assuming
 * a schema.
 *
 * @module
 */
import { isPlainObject } from "../_internal/object.ts";

/**
 * Any message object: a plain object, a `Map`, or an object with fields.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentOf, type Envelope, fieldOf } from "@bub/core";
 * const message: Envelope = { channel: "cli", chatId: "local", content: "hi", context: { user: "ada" } };
 * assert.equal(contentOf(message), "hi");
 * assert.equal(fieldOf(message, "sessionId", "cli:local"), "cli:local");
 * ```
 */
export type Envelope = unknown;

/**
 * Reads `key` from a mapping (`Map` or plain object) or an object's property. Returns `fallback`
 * only when the key is absent: a key present with `null` returns `null`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fieldOf } from "@bub/core";
 * assert.ok(fieldOf({ a: null }, "a", 1) === null);
 * assert.ok(fieldOf({}, "a", 1) === 1);
 * ```
 */
export function fieldOf(message: Envelope, key: string, fallback: unknown = null): unknown {
  if (message instanceof Map) return message.has(key) ? message.get(key) : fallback;
  if (typeof message !== "object" || message === null) return fallback;
  if (!(key in message)) return fallback;
  const value = (message as Record<string, unknown>)[key];
  return value === undefined ? null : value;
}

/**
 * The `content` field as a string; `""` when it is absent, null or undefined (Bub prints `"None"`
 * for a present null; this port returns `""`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentOf } from "@bub/core";
 * assert.ok(contentOf({ content: "hi" }) === "hi");
 * ```
 */
export function contentOf(message: Envelope): string {
  const value = fieldOf(message, "content", "");
  return value === null || value === undefined ? "" : String(value);
}

/**
 * A plain-object copy: mappings and objects are shallow-copied, anything else becomes
 * `{ content: String(message) }`.
 */
export function normalizeEnvelope(message: Envelope): Record<string, unknown> {
  if (message instanceof Map) return Object.fromEntries(message);
  if (typeof message === "object" && message !== null) return { ...message };
  return { content: String(message) };
}

/**
 * A batch as a list: null → `[]`, an array → a copy, anything else → `[batch]` (iterators are not
 * expanded).
 */
export function unpackBatch(batch: unknown): Envelope[] {
  if (batch === null || batch === undefined) return [];
  if (Array.isArray(batch)) return [...batch];
  return [batch];
}

/** True for plain objects and `Map`s: the envelopes `processInbound` may write `session_id` into. */
export function isMappingEnvelope(message: Envelope): boolean {
  return message instanceof Map || isPlainObject(message);
}

const ABSENT: unique symbol = Symbol("absent");

/** Reads a field by its camelCase name, falling back to its snake_case wire name. */
export function envelopeField(message: Envelope, camel: string, snake: string): unknown {
  const value = fieldOf(message, camel, ABSENT);
  return value === ABSENT ? fieldOf(message, snake, null) : value;
}

/** `"<channel>:<chatId>"`, each part `"default"` when null or undefined: Bub's session key. */
export function sessionKey(channel: unknown, chatId: unknown): string {
  return `${String(channel ?? "default")}:${String(chatId ?? "default")}`;
}

/**
 * The default session id (kernel spec §4.2): the message's own non-null `sessionId` (or
 * `session_id`) as a string, else {@link sessionKey} of its `channel` and `chatId`.
 */
export function defaultSessionId(message: Envelope): string {
  const own = envelopeField(message, "sessionId", "session_id");
  if (own !== null && own !== undefined) return String(own);
  return sessionKey(fieldOf(message, "channel", null), envelopeField(message, "chatId", "chat_id"));
}

/**
 * How {@link writeSessionId} treats a message that already names a session: `"if_absent"`
 * (`processInbound`, kernel spec §6.4 step 2: only plain objects and `Map`s without a
 * `sessionId`/`session_id` key get one) or `"overwrite"` (channel admission, §8.5 step 1: the
 * resolved id is written back onto any object, `session_id` too when it has that key).
 */
export type WriteSessionIdMode = "if_absent" | "overwrite";

/**
 * Writes the resolved session id onto `message` under `sessionId` (see
 * {@link WriteSessionIdMode}). Frozen or read-only messages are left as they are.
 */
export function writeSessionId(
  message: Envelope,
  sessionId: string,
  mode: WriteSessionIdMode,
): void {
  if (typeof message !== "object" || message === null) return;
  const map = message instanceof Map ? message : null;
  const record = message as Record<string, unknown>;
  const has = (key: string) => map ? map.has(key) : key in record;
  const set = (key: string) => map ? map.set(key, sessionId) : (record[key] = sessionId);
  try {
    if (mode === "if_absent") {
      if (isMappingEnvelope(message) && !has("sessionId") && !has("session_id")) set("sessionId");
      return;
    }
    set("sessionId");
    if (has("session_id")) set("session_id");
  } catch {
    // a frozen or read-only message keeps its own fields
  }
}
