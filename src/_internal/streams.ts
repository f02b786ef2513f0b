/**
 * Web-stream helpers with the documented semantics of `@std/streams`: splitting text into lines
 * and merging readable streams.
 *
 * @module
 */

import { abortable } from "./async.ts";

/** Options of {@link TextLineStream}. */
export interface TextLineStreamOptions {
  /** Also split on a lone `\r` (not followed by `\n`). Default false. */
  allowCR?: boolean;
}

/**
 * Splits a stream of text into lines: on `\n` and `\r\n` (the line ending is dropped), and with
 * `allowCR` also on a lone `\r`. Text after the last line ending is emitted when the input ends.
 *
 * @example Splitting text into lines
 * ```ts
 * const lines = ReadableStream.from(["a\r\nb", "\nc"]).pipeThrough(new TextLineStream());
 * // "a", "b", "c"
 * ```
 */
export class TextLineStream extends TransformStream<string, string> {
  /**
   * Creates a line splitter.
   * @param options how to split
   */
  constructor(options: TextLineStreamOptions = {}) {
    const allowCR = options.allowCR ?? false;
    let rest = "";
    super({
      transform(chunk, controller) {
        rest = _splitLines(rest + chunk, allowCR, (line) => controller.enqueue(line));
      },
      flush(controller) {
        const tail = _tailLine(rest, allowCR);
        if (tail !== undefined) controller.enqueue(tail);
      },
    });
  }
}

/** Passes every complete line of `text` to `emit`; returns the unterminated tail. */
function _splitLines(text: string, allowCR: boolean, emit: (line: string) => void): string {
  let start = 0;
  while (start < text.length) {
    const lf = text.indexOf("\n", start);
    const cr = allowCR ? text.indexOf("\r", start) : -1;
    // A lone CR ends a line only when the next character is known and is not LF.
    if (cr !== -1 && cr < text.length - 1 && (lf === -1 || cr < lf - 1)) {
      emit(text.slice(start, cr));
      start = cr + 1;
      continue;
    }
    if (lf === -1) break;
    const end = lf > start && text[lf - 1] === "\r" ? lf - 1 : lf;
    emit(text.slice(start, end));
    start = lf + 1;
  }
  return text.slice(start);
}

/** The last line, from the text left when the input ends (none when empty). */
function _tailLine(rest: string, allowCR: boolean): string | undefined {
  if (rest === "") return undefined;
  return allowCR && rest.endsWith("\r") ? rest.slice(0, -1) : rest;
}

/** Options of {@link toLines}. */
export interface ToLinesOptions extends TextLineStreamOptions {
  /** Stops reading (and cancels the stream) when aborted; the iteration throws `signal.reason`. */
  signal?: AbortSignal;
}

/**
 * Decodes a UTF-8 byte stream and yields its lines (see {@link TextLineStream}). Stopping the
 * iteration early, or aborting `signal`, cancels the stream.
 *
 * @example Reading a response line by line
 * ```ts
 * const response = await fetch("https://example.com/log.txt");
 * for await (const line of toLines(response.body!)) console.log(line);
 * ```
 */
export async function* toLines(
  stream: ReadableStream<Uint8Array>,
  options: ToLinesOptions = {},
): AsyncGenerator<string> {
  const { signal } = options;
  const allowCR = options.allowCR ?? false;
  signal?.throwIfAborted();
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const lines: string[] = [];
  let rest = "";
  let finished = false;
  try {
    while (true) {
      const { done, value } = await abortable(reader.read(), signal);
      if (done) break;
      rest = _splitLines(rest + decoder.decode(value, { stream: true }), allowCR, (line) => {
        lines.push(line);
      });
      for (const line of lines.splice(0)) yield line;
    }
    finished = true;
    rest = _splitLines(rest + decoder.decode(), allowCR, (line) => lines.push(line));
    yield* lines;
    const tail = _tailLine(rest, allowCR);
    if (tail !== undefined) yield tail;
  } finally {
    if (!finished) await reader.cancel(signal?.aborted ? signal.reason : undefined).catch(() => {});
    reader.releaseLock();
  }
}

/**
 * Merges readable streams into one that yields chunks as they arrive from any source and closes
 * when all sources close. The first source error errors the merged stream and cancels the other
 * sources; cancelling the merged stream cancels every source.
 *
 * @example Merging stdout and stderr
 * ```ts
 * const both = mergeReadableStreams(child.stdout, child.stderr);
 * ```
 */
export function mergeReadableStreams<T>(...streams: ReadableStream<T>[]): ReadableStream<T> {
  const readers = streams.map((stream) => stream.getReader());
  let finished = false;
  let wake: (() => void) | undefined;
  let demand: Promise<void> | undefined;
  const cancelAll = (reason: unknown): Promise<unknown> =>
    Promise.allSettled(readers.map((reader) => reader.cancel(reason)));
  return new ReadableStream<T>({
    start(controller) {
      let open = readers.length;
      if (open === 0) {
        finished = true;
        controller.close();
        return;
      }
      const waitForDemand = async (): Promise<void> => {
        while (!finished && (controller.desiredSize ?? 0) <= 0) {
          demand ??= new Promise<void>((resolve) => wake = resolve);
          await demand;
        }
      };
      for (const reader of readers) {
        void (async () => {
          try {
            while (true) {
              await waitForDemand();
              if (finished) return;
              const { done, value } = await reader.read();
              if (finished) return;
              if (done) break;
              controller.enqueue(value);
            }
          } catch (error) {
            if (finished) return;
            finished = true;
            controller.error(error);
            wake?.();
            await cancelAll(error);
            return;
          }
          open -= 1;
          if (open === 0 && !finished) {
            finished = true;
            controller.close();
          }
        })();
      }
    },
    pull() {
      const resolve = wake;
      wake = undefined;
      demand = undefined;
      resolve?.();
    },
    async cancel(reason) {
      finished = true;
      const resolve = wake;
      wake = undefined;
      demand = undefined;
      resolve?.();
      await cancelAll(reason);
    },
  });
}
