/**
 * The `messages` array of a chat-completions body, with a long session's history serialised
 * once: the JSON of a context's kept messages (see `tape/_message_source.ts`) is kept per kept
 * list and protocol as one growing UTF-8 buffer, so a request whose messages start with unchanged
 * copies of that history sends those bytes as they are and serialises only the rest (the system
 * prompt, the turn's own messages). Building a fresh string of the whole history costs Node
 * milliseconds per call at a thousand turns; copying its bytes costs microseconds.
 *
 * @module
 */
import { findKept, type KeptMessage, matchedCopies } from "../tape/_message_source.ts";

/** The messages' JSON: `open`, then the cached bytes of the kept run (if any), then `close`. */
export interface MessagesJson {
  /** `[` and the JSON of the messages before the kept run (with the comma that follows). */
  open: string;
  /** The kept run's JSON bytes (message JSON joined by commas), or null. */
  kept: Uint8Array | null;
  /** The rest (with the comma before it) and `]`. */
  close: string;
}

/** One kept list's JSON bytes for one protocol. */
interface KeptBytes {
  bytes: Uint8Array;
  /** `ends[j]`: where message j's JSON ends (message j > 0 starts one byte after `ends[j - 1]`). */
  ends: Uint32Array;
  /** Messages serialised so far. */
  count: number;
  /** The first of them `accepts` refused (-1: none). */
  refused: number;
}

const ENCODER = new TextEncoder();
/** Shorter runs (a fresh session, a turn's own messages) are serialised as they come. */
const MIN_KEPT_RUN = 16;
const cache = new WeakMap<readonly KeptMessage[], Map<string, KeptBytes>>();

function _extend(store: KeptBytes, json: string): void {
  const count = store.count;
  const at = count === 0 ? 0 : store.ends[count - 1]! + 1;
  const need = at + json.length * 3;
  if (need > store.bytes.length) {
    const grown = new Uint8Array(Math.max(need, store.bytes.length * 2));
    grown.set(store.bytes.subarray(0, at));
    store.bytes = grown;
  }
  if (count === store.ends.length) {
    const grown = new Uint32Array(Math.max(64, count * 2));
    grown.set(store.ends);
    store.ends = grown;
  }
  if (at > 0) store.bytes[at - 1] = 0x2c; // ","
  const { written } = ENCODER.encodeInto(json, store.bytes.subarray(at));
  store.ends[count] = at + written;
  store.count = count + 1;
}

/** True for every message. */
const ACCEPT_ALL = (_message: Record<string, unknown>): boolean => true;

/**
 * The JSON of `messages` as the body sends it; `json` gives one message's JSON (the converted
 * message, serialised). Equal, as text, to `[` + each message's `json` joined by commas + `]`.
 * Null when `accepts` refuses one of the messages (a copy of a kept message is judged as its
 * source, once per kept message: they are equal).
 */
export function messagesJson(
  key: string,
  messages: readonly Record<string, unknown>[],
  json: (message: Record<string, unknown>) => string,
  accepts: (message: Record<string, unknown>) => boolean = ACCEPT_ALL,
): MessagesJson | null {
  const run = findKept(messages);
  const matched = run === null ? 0 : matchedCopies(
    run,
    messages,
    run.start,
    Math.min(run.kept.length, messages.length - run.start),
  );
  if (run === null || matched < MIN_KEPT_RUN) {
    if (!messages.every(accepts)) return null;
    return { open: `[${messages.map(json).join(",")}]`, kept: null, close: "" };
  }
  let byKey = cache.get(run.kept);
  if (byKey === undefined) cache.set(run.kept, byKey = new Map());
  let store = byKey.get(key);
  if (store === undefined) {
    const bytes = new Uint8Array(0);
    byKey.set(key, store = { bytes, ends: new Uint32Array(0), count: 0, refused: -1 });
  }
  // A kept message's JSON is its copy's (they are equal): serialise the source itself.
  for (let j = store.count; j < matched; j++) {
    const source = run.kept[j]!;
    if (store.refused < 0 && !accepts(source)) store.refused = j;
    _extend(store, json(source));
  }
  if (store.refused >= 0 && store.refused < matched) return null;
  const beforeRun = messages.slice(0, run.start);
  const afterRun = messages.slice(run.start + matched);
  if (!beforeRun.every(accepts) || !afterRun.every(accepts)) return null;
  const before = beforeRun.map(json);
  const after = afterRun.map(json);
  return {
    open: before.length > 0 ? `[${before.join(",")},` : "[",
    kept: store.bytes.subarray(0, store.ends[matched - 1]!),
    close: after.length > 0 ? `,${after.join(",")}]` : "]",
  };
}
