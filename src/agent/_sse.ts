/**
 * A streaming Server-Sent Events decoder: bytes in, the `data` of each complete event out
 * (multi-line data joined with `\n`). Handles `\n`, `\r\n` and `\r` line ends, events and
 * multibyte characters split across chunks, comments and the other fields (ignored).
 *
 * @module
 */

/** Decodes one SSE stream; feed it chunks in order, then call {@link SseDecoder.end}. */
export class SseDecoder {
  #decoder = new TextDecoder();
  #buffer = "";
  #data: string[] = [];
  #dataLength = 0;

  /**
   * UTF-16 units held for an event not complete yet (its unfinished line and its `data` lines
   * so far): what a stream that never ends its line or event makes grow.
   */
  get pending(): number {
    return this.#buffer.length + this.#dataLength;
  }

  /** The data of every event completed by `chunk`. */
  push(chunk: Uint8Array): string[] {
    return this.#scan(this.#decoder.decode(chunk, { stream: true }), false);
  }

  /** The data of the events completed by the end of the stream (an unterminated last event too). */
  end(): string[] {
    const out = this.#scan(this.#decoder.decode(), true);
    if (this.#buffer !== "") this.#line(this.#buffer, out);
    this.#buffer = "";
    if (this.#data.length > 0) this.#dispatch(out);
    return out;
  }

  #scan(text: string, final: boolean): string[] {
    const out: string[] = [];
    const buffer = this.#buffer === "" ? text : this.#buffer + text;
    let at = 0;
    const length = buffer.length;
    // The next `\r` at or after `at` (-1: none), looked up again only once passed: streams
    // rarely send one, and a scan to the end for each line would be quadratic in a chunk.
    let cr = -2;
    while (at < length) {
      let end = buffer.indexOf("\n", at);
      if (cr !== -1 && cr < at) cr = buffer.indexOf("\r", at);
      if (cr >= 0 && (end < 0 || cr < end)) end = cr;
      if (end < 0) break;
      // A `\r` at the end of the text may be the first half of `\r\n`.
      if (end === cr && end === length - 1 && !final) break;
      const next = end === cr && buffer.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
      if (end === at) this.#dispatch(out);
      else this.#line(buffer.slice(at, end), out);
      at = next;
    }
    this.#buffer = at === 0 ? buffer : buffer.slice(at);
    return out;
  }

  #line(line: string, _out: string[]): void {
    if (line.charCodeAt(0) !== 100 || !line.startsWith("data")) return; // not `data`
    if (line.length === 4) this.#data.push("");
    else if (line.charCodeAt(4) === 58) { // `data:`
      const data = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
      this.#data.push(data);
      this.#dataLength += data.length;
    }
  }

  #dispatch(out: string[]): void {
    if (this.#data.length === 0) return;
    out.push(this.#data.length === 1 ? this.#data[0]! : this.#data.join("\n"));
    this.#data = [];
    this.#dataLength = 0;
  }
}
