/**
 * One chat-completions response read chunk by chunk, synchronously: the SSE decoder, the chunk
 * → event state (`ChatStream`), where the `start` event goes, the `[DONE]` marker, error frames
 * and the end of the stream. `streamChatCompletions` only awaits the reads and yields what
 * {@link ChatRead.take} collected, so its async generator stays small (one compiled unit less to
 * grow: JavaScriptCore compiles a large async generator slowly, and again for every tier).
 *
 * The SSE decoder ({@link SseDecoder}) turns bytes into the `data` of each complete event.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";
import type { ModelEvent } from "../model_client.ts";
import type { ModelId } from "./provider_presets.ts";
import type { ChatProtocol } from "./_chat_body.ts";
import { ChatStream } from "./_chat_stream.ts";
import type { AnswerLimit } from "../_answer_limit.ts";

/** The read state of one response. */
export class ChatRead {
  /** Events to yield after a {@link take} that answered true; the caller empties it. */
  readonly out: ModelEvent[] = [];
  /** The `start` event (yielded first). */
  readonly startEvent: ModelEvent;
  /** Whether the call has started (OpenAI-compatible: at once; OpenAI chat: at its first output). */
  started: boolean;
  /** Whether the body has ended. */
  ended = false;
  /** The error that ends the stream once its events are out, or null. */
  failure: BubError | null = null;
  #done = false;
  #sse = new SseDecoder();
  #stream: ChatStream;
  #id: ModelId;
  #limit: AnswerLimit | null;

  /**
   * Creates the state of one response.
   *
   * @param protocol which provider's rules apply
   * @param id the model
   * @param limit the answer budget, or null for none
   */
  constructor(protocol: ChatProtocol, id: ModelId, limit: AnswerLimit | null = null) {
    this.#id = id;
    this.#limit = limit;
    this.#stream = new ChatStream(protocol, id, limit);
    this.startEvent = { type: "start", provider: id.provider, model: id.model };
    this.started = protocol === "openai-compatible";
  }

  /**
   * Takes one read of the body: true when {@link out} holds events to yield.
   *
   * @throws BubError (temporary) for an error frame before the call started; (provider) for a
   *   malformed chunk, or an answer (or one unfinished event) past its limit
   */
  take(next: ReadableStreamReadResult<Uint8Array>): boolean {
    const out = this.out;
    const stream = this.#stream;
    this.ended = next.done;
    const events = next.done ? this.#sse.end() : this.#sse.push(next.value);
    this.#limit?.checkPending(this.#sse.pending);
    for (const data of events) {
      if (this.#done) break;
      if (data === "[DONE]") {
        this.#done = true;
        break;
      }
      const frame = stream.apply(data, out);
      if (!this.started && stream.output) this.#start();
      if (frame === null) continue;
      if (!this.started) throw this.#earlyError(frame, data);
      this.failure = stream.error(frame);
      break;
    }
    if (!this.started && this.ended) this.#start();
    if (this.ended && this.failure === null) {
      try {
        stream.finish(out);
      } catch (error) {
        this.failure = error as BubError;
      }
    }
    return this.started && out.length > 0;
  }

  #start(): void {
    this.started = true;
    this.out.unshift(this.startEvent);
  }

  #earlyError(frame: string, data: string): BubError {
    const id = this.#id;
    return new BubError(
      "temporary",
      `Model call to ${id.provider}:${id.model} failed with HTTP 500: ${frame}`,
      { ...id, status_code: 500, response_body: data.slice(0, 2000) },
    );
  }
}

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
