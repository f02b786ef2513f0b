/**
 * The `messages` array of a chat-completions body, with a long session's history serialised
 * once: the JSON of a context's kept messages (see `tape/message_source.ts`) is kept per kept
 * list and protocol as one growing UTF-8 buffer (or, for a text body, one growing string), so a
 * request whose messages hold unchanged copies of that history sends that JSON as it is and
 * serialises only the rest (the system prompt, the turn's own messages). Building a fresh string
 * of the whole history costs Node milliseconds per call at a thousand turns; copying its bytes
 * costs microseconds.
 *
 * Which copies are unchanged: the model call says so for a request only Bub's own code has
 * had ({@link sendsKeptHistory}); any other request's copies are compared with their sources.
 *
 * The kept JSON itself grows one message at a time and is handed out as a prefix (the first `n`
 * messages' JSON joined by commas): as one UTF-8 buffer ({@link KeptBytes}) or one flat string
 * ({@link KeptText}).
 *
 * @module
 */
import {
  findKept,
  type KeptCopies,
  type KeptMessage,
  type KeptRun,
  matchedCopies,
} from "../../tape/message_source.ts";

/** A request's history: untouched copies of a kept run at `start`. */
export interface KeptHistory extends KeptCopies {
  /** Where the copy of `kept[0]` sits in the request's messages. */
  start: number;
}

const histories = new WeakMap<object, KeptHistory>();

/**
 * Notes that `request`'s messages hold `history` as the tape's context made it. Only for a
 * request no code but Bub's own has had (no hook saw it; see `isOwnClient`).
 */
export function sendsKeptHistory(request: object, history: KeptHistory): void {
  histories.set(request, history);
}

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
 * (see `KeptText`), else as bytes. `request` is the request `messages` belong to (see
 * {@link sendsKeptHistory}).
 */
export function messagesJson(
  key: string,
  messages: readonly Record<string, unknown>[],
  json: (message: Record<string, unknown>) => string,
  accepts: (message: Record<string, unknown>) => boolean = ACCEPT_ALL,
  text = false,
  request: object | null = null,
): MessagesJson | null {
  const history = request === null ? undefined : histories.get(request);
  const run: KeptRun | null = history ?? findKept(messages);
  const matched = history !== undefined ? history.count : run === null ? 0 : matchedCopies(
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

const ENCODER = new TextEncoder();

/** One kept list's JSON, message by message, in one growing buffer or string. */
export interface KeptJson {
  /** Messages serialised so far. */
  readonly count: number;
  /** The first message the body does not cover (-1: none). */
  refused: number;
  /** Appends the next message's JSON. */
  add(json: string): void;
}

/**
 * Where each kept message's JSON ends in the joined JSON (message j > 0 starts one `,` after the
 * end of message j - 1), for both kinds below.
 */
class MessageEnds {
  #ends = new Uint32Array(0);
  /** Messages recorded. */
  count = 0;

  /** Where the next message's JSON starts. */
  get next(): number {
    return this.count === 0 ? 0 : this.#ends[this.count - 1]! + 1;
  }

  /** Records the next message, its JSON ending at `end`. */
  push(end: number): void {
    const count = this.count;
    if (count >= this.#ends.length) {
      const grown = new Uint32Array(Math.max(64, count * 2));
      grown.set(this.#ends);
      this.#ends = grown;
    }
    this.#ends[count] = end;
    this.count = count + 1;
  }

  /** Where the JSON of the first `n` (1 ≤ n ≤ count) messages ends. */
  endOf(n: number): number {
    return this.#ends[n - 1]!;
  }
}

/** The kept JSON as UTF-8 bytes. */
export class KeptBytes implements KeptJson {
  #bytes = new Uint8Array(0);
  #ends = new MessageEnds();
  refused = -1;

  /** Messages serialised so far. */
  get count(): number {
    return this.#ends.count;
  }

  /** Appends the next message's JSON. */
  add(json: string): void {
    const at = this.#ends.next;
    const need = at + json.length * 3;
    if (need > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(need, this.#bytes.length * 2));
      grown.set(this.#bytes.subarray(0, at));
      this.#bytes = grown;
    }
    if (at > 0) this.#bytes[at - 1] = 0x2c; // ","
    const { written } = ENCODER.encodeInto(json, this.#bytes.subarray(at));
    this.#ends.push(at + written);
  }

  /** The JSON of the first `n` (1 ≤ n ≤ count) messages, joined by commas. */
  prefix(n: number): Uint8Array {
    return this.#bytes.subarray(0, this.#ends.endOf(n));
  }
}

/**
 * The kept JSON as one flat string: a prefix is a slice of it, or it and the JSON of the few
 * messages added since it was joined (a rope: the runtime copies the body once anyway); those
 * are joined onto it (one copy of the history) only once they are a quarter of it. No decode per
 * call, and a string joined from strings of one-byte characters stays one byte a character, which
 * a runtime sends without converting it first.
 */
export class KeptText implements KeptJson {
  #text = "";
  /** Messages in `#text`. */
  #joined = 0;
  #pending: string[] = [];
  /** In UTF-16 code units. */
  #ends = new MessageEnds();
  refused = -1;

  /** Messages serialised so far. */
  get count(): number {
    return this.#ends.count;
  }

  /** Appends the next message's JSON. */
  add(json: string): void {
    this.#ends.push(this.#ends.next + json.length);
    this.#pending.push(json);
  }

  /** The JSON of the first `n` (1 ≤ n ≤ count) messages, joined by commas. */
  prefix(n: number): string {
    const end = this.#ends.endOf(n);
    const length = this.#text.length;
    if (n > this.#joined) {
      // A few messages past the text go along as a rope (the runtime copies the body once
      // anyway); the text takes them in, one copy, only once they are a quarter of it.
      if (end - length > length >> 2) {
        if (this.#joined > 0) this.#pending.unshift(this.#text);
        this.#text = this.#pending.join(",");
        this.#pending = [];
        this.#joined = this.count;
      } else {
        return `${this.#text},${this.#pending.slice(0, n - this.#joined).join(",")}`;
      }
    }
    return end === this.#text.length ? this.#text : this.#text.slice(0, end);
  }
}
