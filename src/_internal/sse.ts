/**
 * Server-Sent Events over web streams, following the WHATWG HTML "event stream" interpretation:
 * {@link parseSse} turns bytes into messages, {@link formatSse} writes one message as wire text.
 *
 * @module
 */

import { abortable } from "./async.ts";

/** One dispatched Server-Sent Events message. */
export interface SseMessage {
  /** The event type; `"message"` when the event named none. */
  event: string;
  /** The `data:` lines of the event joined by `\n`. */
  data: string;
  /** The last event ID of the stream so far (it persists across events); `""` when none. */
  id: string;
  /** The latest `retry:` reconnection time (ms) of the stream so far, if any. */
  retry: number | undefined;
}

/** Options of {@link parseSse}. */
export interface ParseSseOptions {
  /** Stops reading (and cancels the source) when aborted; the iteration throws `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * Parses a UTF-8 event stream into messages. Lines end with CRLF, LF or CR; a leading BOM is
 * dropped; lines starting with `:` are comments; a line without `:` is a field with an empty
 * value; one space after the colon is stripped; an event is dispatched on a blank line (events
 * without data are not), and an unfinished event at the end of the stream is discarded.
 * Stopping the iteration early, or aborting `signal`, cancels the source.
 *
 * @example Reading an SSE response
 * ```ts
 * const response = await fetch("http://127.0.0.1:8080/events");
 * for await (const message of parseSse(response.body!)) console.log(message.event, message.data);
 * ```
 */
export async function* parseSse(
  stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: ParseSseOptions = {},
): AsyncGenerator<SseMessage> {
  const { signal } = options;
  signal?.throwIfAborted();
  const chunks = _chunksOf(stream);
  const decoder = new TextDecoder("utf-8");
  const state: _SseState = { event: "", data: "", hasData: false, id: "", retry: undefined };
  let buffer = "";
  let skipLF = false; // the previous chunk ended with CR: a leading LF belongs to it
  let pulling = false;
  let finished = false;
  try {
    while (true) {
      pulling = true;
      const { done, value } = await abortable(chunks.next(), signal);
      pulling = false;
      if (done) {
        finished = true;
        return;
      }
      // `buffer` holds no line break here, so scanning resumes where it ended.
      let i = buffer.length;
      buffer += decoder.decode(value, { stream: true });
      if (skipLF && i < buffer.length) {
        if (buffer[i] === "\n") buffer = buffer.slice(0, i) + buffer.slice(i + 1);
        skipLF = false;
      }
      let start = 0;
      for (; i < buffer.length; i++) {
        const char = buffer[i];
        if (char !== "\n" && char !== "\r") continue;
        const message = _processLine(buffer.slice(start, i), state);
        if (char === "\r") {
          if (i + 1 === buffer.length) skipLF = true;
          else if (buffer[i + 1] === "\n") i++;
        }
        start = i + 1;
        if (message) yield message;
      }
      buffer = buffer.slice(start);
    }
  } finally {
    if (!finished) await _close(chunks, pulling, signal);
  }
}

/** What the parser keeps between lines. */
interface _SseState {
  event: string;
  data: string;
  hasData: boolean;
  id: string;
  retry: number | undefined;
}

/** Interprets one line; returns the message it dispatches, if any. */
function _processLine(line: string, state: _SseState): SseMessage | undefined {
  if (line === "") return _dispatch(state);
  if (line.startsWith(":")) return undefined;
  const colon = line.indexOf(":");
  const field = colon === -1 ? line : line.slice(0, colon);
  let value = colon === -1 ? "" : line.slice(colon + 1);
  if (value.startsWith(" ")) value = value.slice(1);
  switch (field) {
    case "event":
      state.event = value;
      break;
    case "data":
      state.data += state.hasData ? `\n${value}` : value;
      state.hasData = true;
      break;
    case "id":
      if (!value.includes("\0")) state.id = value;
      break;
    case "retry":
      if (/^[0-9]+$/.test(value)) state.retry = Number(value);
      break;
  }
  return undefined;
}

/** Ends the current event: returns it when it has data, and resets the per-event buffers. */
function _dispatch(state: _SseState): SseMessage | undefined {
  const message = state.hasData
    ? { event: state.event || "message", data: state.data, id: state.id, retry: state.retry }
    : undefined;
  state.event = "";
  state.data = "";
  state.hasData = false;
  return message;
}

/** A source of byte chunks; `cancel` is set for readable streams. */
interface _Chunks extends AsyncIterator<Uint8Array> {
  cancel?: (reason?: unknown) => Promise<void>;
}

/** An iterator over the byte chunks of `source`. */
function _chunksOf(source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): _Chunks {
  if (!(source instanceof ReadableStream)) return source[Symbol.asyncIterator]();
  const reader = source.getReader();
  return {
    next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
    cancel: (reason) => reader.cancel(reason),
  };
}

/**
 * Closes a source the parser stopped reading early, ignoring failures. A stream is cancelled
 * (which also settles a pending read); an iterator with a `next()` in flight is asked to return
 * once that settles, without waiting for it.
 */
async function _close(
  chunks: _Chunks,
  pulling: boolean,
  signal: AbortSignal | undefined,
): Promise<void> {
  const reason = signal?.aborted ? signal.reason : undefined;
  if (chunks.cancel) await chunks.cancel(reason).catch(() => {});
  else if (!pulling) await Promise.resolve(chunks.return?.()).catch(() => {});
  else Promise.resolve().then(() => chunks.return?.()).catch(() => {});
}

/** A message to write with {@link formatSse}. */
export interface SseFormatInput {
  /** The event type; omitted from the wire when absent. */
  event?: string;
  /** The payload; each of its lines becomes one `data:` line. */
  data: string;
  /** The event ID. */
  id?: string;
  /** The reconnection time in ms. */
  retry?: number;
}

/**
 * Writes one event as Server-Sent Events wire text, ending with the blank line that dispatches
 * it. Line breaks in `data` (CRLF, CR or LF) become separate `data:` lines, so a parser reads
 * the data back with `\n` breaks.
 *
 * @example Writing an event
 * ```ts
 * formatSse({ event: "delta", data: "a\nb" }); // "event: delta\ndata: a\ndata: b\n\n"
 * ```
 */
export function formatSse(message: SseFormatInput): string {
  const { event, data, id, retry } = message;
  if (typeof data !== "string") {
    throw new TypeError(`Cannot format SSE: 'data' must be a string, got ${typeof data}`);
  }
  let text = "";
  if (event !== undefined) {
    if (/[\r\n]/.test(event)) {
      throw new TypeError(
        `Cannot format SSE: event type must not contain line breaks, got ${JSON.stringify(event)}`,
      );
    }
    text += `event: ${event}\n`;
  }
  if (id !== undefined) {
    if (/[\r\n\0]/.test(id)) {
      throw new TypeError(
        `Cannot format SSE: id must not contain line breaks or NUL, got ${JSON.stringify(id)}`,
      );
    }
    text += `id: ${id}\n`;
  }
  if (retry !== undefined) {
    if (!Number.isSafeInteger(retry) || retry < 0) {
      throw new RangeError(`Cannot format SSE: retry must be a non-negative integer, got ${retry}`);
    }
    text += `retry: ${retry}\n`;
  }
  for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}
