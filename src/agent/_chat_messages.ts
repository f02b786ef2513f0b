/**
 * The `messages` array of a chat-completions body, with a long session's history serialised
 * once: the JSON of a context's kept messages (see `tape/_message_source.ts`) is kept per kept
 * list and protocol as one growing UTF-8 buffer (or, for a text body, one growing string; see
 * `_kept_json.ts`), so a request whose messages start with unchanged copies of that history sends
 * that JSON as it is and serialises only the rest (the system prompt, the turn's own messages).
 * Building a fresh string of the whole history costs Node milliseconds per call at a thousand
 * turns; copying its bytes costs microseconds.
 *
 * @module
 */
import { findKept, type KeptMessage, matchedCopies } from "../tape/_message_source.ts";
import { KeptBytes, KeptText } from "./_kept_json.ts";

/** The messages' JSON: `open`, then the cached JSON of the kept run (if any), then `close`. */
export interface MessagesJson {
  /** `[` and the JSON of the messages before the kept run (with the comma that follows). */
  open: string;
  /**
   * The kept run's JSON (message JSON joined by commas) as bytes, or as text when asked for
   * text; null when there is no kept run.
   */
  kept: Uint8Array | string | null;
  /** The rest (with the comma before it) and `]`. */
  close: string;
}

/** Shorter runs (a fresh session, a turn's own messages) are serialised as they come. */
const MIN_KEPT_RUN = 16;
const cache = new WeakMap<readonly KeptMessage[], Map<string, KeptBytes | KeptText>>();

/** True for every message. */
const ACCEPT_ALL = (_message: Record<string, unknown>): boolean => true;

/**
 * The JSON of `messages` as the body sends it; `json` gives one message's JSON (the converted
 * message, serialised). Equal, as text, to `[` + each message's `json` joined by commas + `]`.
 * Null when `accepts` refuses one of the messages (a copy of a kept message is judged as its
 * source, once per kept message: they are equal). With `text` the kept run comes as a string
 * (see `KeptText`), else as bytes.
 */
export function messagesJson(
  key: string,
  messages: readonly Record<string, unknown>[],
  json: (message: Record<string, unknown>) => string,
  accepts: (message: Record<string, unknown>) => boolean = ACCEPT_ALL,
  text = false,
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
  const storeKey = text ? `${key}\u0000text` : key;
  let store = byKey.get(storeKey);
  if (store === undefined) byKey.set(storeKey, store = text ? new KeptText() : new KeptBytes());
  // A kept message's JSON is its copy's (they are equal): serialise the source itself.
  for (let j = store.count; j < matched; j++) {
    const source = run.kept[j]!;
    if (store.refused < 0 && !accepts(source)) store.refused = j;
    store.add(json(source));
  }
  if (store.refused >= 0 && store.refused < matched) return null;
  const beforeRun = messages.slice(0, run.start);
  const afterRun = messages.slice(run.start + matched);
  if (!beforeRun.every(accepts) || !afterRun.every(accepts)) return null;
  const before = beforeRun.map(json);
  const after = afterRun.map(json);
  return {
    open: before.length > 0 ? `[${before.join(",")},` : "[",
    kept: store.prefix(matched),
    close: after.length > 0 ? `,${after.join(",")}]` : "]",
  };
}
