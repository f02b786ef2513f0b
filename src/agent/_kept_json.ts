/**
 * The JSON of a kept list of context messages as a request body sends it, grown one message at a
 * time and handed out as a prefix (the first `n` messages' JSON joined by commas): as one UTF-8
 * buffer ({@link KeptBytes}, copied into a body of bytes) or as one flat string
 * ({@link KeptText}, for runtimes that send a text body cheaper: Bun).
 *
 * @module
 */

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
