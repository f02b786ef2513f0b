/**
 * Private: one pass over the bytes of a JSON-RPC response too large to keep (see
 * `_oversized.ts`), keeping only what its stand-in needs: the `id`, the top-level keys,
 * `result.isError` and the start of the text blocks (`result.content[i].text`, as sent, up to a
 * budget). A small JSON scanner, not a parser: each byte is looked at once (inside a string, the
 * next quote or backslash is found with `indexOf`), and nesting deeper than the text blocks is
 * only counted.
 *
 * @module
 */

/** Levels of nesting whose keys are tracked (the text blocks are at level 4). */
const TRACKED_DEPTH = 6;
/** The longest key or `id` kept. */
const MAX_TOKEN = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Level {
  object: boolean;
  /** The key of the value being read (objects). */
  key: string;
  /** An object waiting for a key. */
  expectKey: boolean;
}

/** The scan of one response. */
export class ResponseScanner {
  /** The keys of the top-level object. */
  readonly topKeys: Set<string> = new Set();
  /** Whether `result.isError` is `true`. */
  isError = false;
  #maxTextBytes: number;
  #stack: Level[] = [];
  #deep = 0;
  #inString = false;
  #escape = false;
  #isKey = false;
  #capture: "text" | "key" | "id" | null = null;
  #token: number[] = [];
  #idToken: number[] | null = null;
  #scalar: number[] | null = null;
  #scalarKey: "id" | "isError" | null = null;
  #texts: Uint8Array[][] = [];
  #textBytes = 0;

  /**
   * Creates the scan.
   *
   * @param maxTextBytes how many bytes of text (as sent) to keep
   */
  constructor(maxTextBytes: number) {
    this.#maxTextBytes = maxTextBytes;
  }

  /** Scans the next bytes. */
  scan(chunk: Uint8Array): void {
    this.#scan(chunk);
  }

  /** The kept text blocks, decoded and joined (a block cut inside an escape loses it). */
  text(): string {
    const decoder = new TextDecoder();
    const out: string[] = [];
    for (const parts of this.#texts) {
      let raw = decoder.decode(concat(parts));
      for (let trim = 0; trim < 7 && raw.length > 0; trim++) {
        try {
          out.push(JSON.parse(`"${raw}"`) as string);
          break;
        } catch {
          raw = raw.slice(0, -1);
        }
      }
    }
    return out.join("\n");
  }

  /** The `id` (a string or a number), or undefined when there is none. */
  id(): string | number | undefined {
    if (this.#idToken === null) return undefined;
    const text = new TextDecoder().decode(new Uint8Array(this.#idToken));
    try {
      const value = JSON.parse(text) as unknown;
      return typeof value === "string" || typeof value === "number" ? value : undefined;
    } catch {
      return undefined;
    }
  }

  #scan(chunk: Uint8Array): void {
    const length = chunk.length;
    let nextQuote = -2;
    let nextSlash = -2;
    let i = 0;
    while (i < length) {
      if (this.#inString) {
        if (this.#escape) {
          this.#keep(chunk, i, i + 1);
          this.#escape = false;
          i++;
          continue;
        }
        // Jump to the next quote or backslash (each looked up again only once passed).
        if (nextQuote !== -1 && nextQuote < i) nextQuote = chunk.indexOf(QUOTE, i);
        if (nextSlash !== -1 && nextSlash < i) nextSlash = chunk.indexOf(BACKSLASH, i);
        let stop = nextQuote < 0 ? nextSlash : nextSlash < 0 ? nextQuote : Math.min(
          nextQuote,
          nextSlash,
        );
        if (stop < 0) stop = length;
        this.#keep(chunk, i, stop);
        if (stop === length) return;
        if (chunk[stop] === BACKSLASH) {
          this.#keep(chunk, stop, stop + 1);
          this.#escape = true;
          i = stop + 1;
          continue;
        }
        this.#endString();
        i = stop + 1;
        continue;
      }
      this.#structural(chunk[i]!);
      i++;
    }
  }

  /** Keeps `chunk[from, to)` of the string being read when it is captured. */
  #keep(chunk: Uint8Array, from: number, to: number): void {
    if (this.#capture === null || to <= from) return;
    if (this.#capture === "text") {
      const room = this.#maxTextBytes - this.#textBytes;
      if (room <= 0) return;
      const end = Math.min(to, from + room);
      this.#texts.at(-1)!.push(chunk.slice(from, end));
      this.#textBytes += end - from;
      return;
    }
    for (let at = from; at < to && this.#token.length < MAX_TOKEN; at++) {
      this.#token.push(chunk[at]!);
    }
  }

  #startString(): void {
    this.#inString = true;
    const top = this.#stack.at(-1);
    this.#isKey = this.#deep === 0 && top !== undefined && top.object && top.expectKey;
    this.#capture = null;
    if (this.#deep > 0) return;
    if (this.#isKey) {
      this.#capture = "key";
      this.#token = [];
    } else if (this.#at("id")) {
      this.#capture = "id";
      this.#token = [QUOTE];
    } else if (this.#atText()) {
      this.#capture = "text";
      this.#texts.push([]);
    }
  }

  #endString(): void {
    this.#inString = false;
    const top = this.#stack.at(-1);
    if (this.#capture === "key" && top) {
      top.key = new TextDecoder().decode(new Uint8Array(this.#token));
      top.expectKey = false;
      if (this.#stack.length === 1) this.topKeys.add(top.key);
    } else if (this.#capture === "id") {
      this.#token.push(QUOTE);
      this.#idToken = this.#token;
    }
    this.#capture = null;
  }

  /** True when the value being read is `key` of the top-level object. */
  #at(key: string): boolean {
    const stack = this.#stack;
    return stack.length === 1 && stack[0]!.object && stack[0]!.key === key;
  }

  /** True when the string being read is `result.content[i].text`. */
  #atText(): boolean {
    const s = this.#stack;
    return s.length === 4 && s[0]!.key === "result" && s[1]!.object && s[1]!.key === "content" &&
      !s[2]!.object && s[3]!.object && s[3]!.key === "text";
  }

  #structural(byte: number): void {
    if (byte === QUOTE) return this.#startString();
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x3a) {
      return this.#endScalar();
    }
    if (byte === 0x7b || byte === 0x5b) { // { [
      this.#endScalar();
      if (this.#deep > 0 || this.#stack.length >= TRACKED_DEPTH) this.#deep++;
      else this.#stack.push({ object: byte === 0x7b, key: "", expectKey: byte === 0x7b });
      return;
    }
    if (byte === 0x7d || byte === 0x5d) { // } ]
      this.#endScalar();
      if (this.#deep > 0) this.#deep--;
      else this.#stack.pop();
      return;
    }
    if (byte === 0x2c) { // ,
      this.#endScalar();
      const top = this.#stack.at(-1);
      if (this.#deep === 0 && top?.object) top.expectKey = true;
      return;
    }
    // A number or literal character.
    if (this.#scalar === null && this.#deep === 0) {
      if (this.#at("id")) this.#scalarKey = "id";
      else if (this.#atIsError()) this.#scalarKey = "isError";
      else return;
      this.#scalar = [];
    }
    if (this.#scalar !== null && this.#scalar.length < MAX_TOKEN) this.#scalar.push(byte);
  }

  #atIsError(): boolean {
    const s = this.#stack;
    return s.length === 2 && s[0]!.key === "result" && s[1]!.object && s[1]!.key === "isError";
  }

  #endScalar(): void {
    if (this.#scalar === null) return;
    const text = String.fromCharCode(...this.#scalar);
    if (this.#scalarKey === "id") this.#idToken = this.#scalar;
    else if (this.#scalarKey === "isError") this.isError = text === "true";
    this.#scalar = null;
    this.#scalarKey = null;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
