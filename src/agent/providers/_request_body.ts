/**
 * The `fetch` wrappers of a call through the AI SDK: {@link withBodyExtras} merges Bub's request
 * arguments into the JSON body the SDK built; {@link withActivity}, reports every arrival of bytes (the response, then each
 * body chunk), so a model call can tell a slow stream from a stalled one; {@link withEventLimit}
 * bounds the bytes of one unfinished SSE event.
 *
 * @module
 */
import { isRecord } from "../../_internal/object.ts";
import { answerTooLarge } from "../_answer_limit.ts";

/**
 * A `fetch`-compatible function (a provider client's `fetch` option).
 *
 * @example
 * ```ts
 * import type { FetchLike } from "@bub/core/agent";
 * const seen: string[] = [];
 * const logged: FetchLike = (input, init) => {
 *   seen.push(String(input instanceof Request ? input.url : input));
 *   return fetch(input, init);
 * };
 * ```
 */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Body fields merged around the SDK's body. */
export interface BodyExtras {
  /** Sent first: the SDK's own (managed) fields win over these. */
  before: Record<string, unknown>;
  /** Sent last: these win over everything. Plain objects are merged one level deep. */
  after: Record<string, unknown>;
}

/** Returns `{...before, ...body, ...after}` (objects in `after` merged into the body's). */
export function mergeBody(
  body: Record<string, unknown>,
  extras: BodyExtras,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...extras.before, ...body };
  for (const [key, value] of Object.entries(extras.after)) {
    const current = merged[key];
    merged[key] = isRecord(value) && isRecord(current) ? { ...current, ...value } : value;
  }
  return merged;
}

/**
 * The merged body without parsing it, when that gives exactly what parsing would: `body` is the
 * compact `JSON.stringify` output of an object (as the AI SDK sends) and names none of the extra
 * keys, so the extras only add members before and after the body's own. Null otherwise.
 */
function spliceBody(
  body: string,
  keys: readonly string[],
  beforeText: string,
  afterText: string,
): string | null {
  // An extra key present in the body (anywhere, even nested) needs a real merge; so does text
  // that may not be compact JSON (the splice must not turn invalid JSON into a request).
  if (!body.endsWith("}") || keys.some((key) => body.includes(key))) return null;
  if (!isCompactJsonObject(body)) return null;
  const inner = body.slice(1, -1);
  return `{${[beforeText, inner, afterText].filter((part) => part !== "").join(",")}}`;
}

/** A cheap check that `text` is `JSON.stringify` output of an object: `{}` or `{"...":...}`. */
function isCompactJsonObject(text: string): boolean {
  return text === "{}" || (text.startsWith('{"') && text.length > 3);
}

/**
 * Wraps `fetch` so every POST whose body is a JSON object string gets `extras` merged in.
 * Other requests pass through unchanged.
 */
export function withBodyExtras(fetchFn: FetchLike, extras: BodyExtras): FetchLike {
  if (Object.keys(extras.before).length === 0 && Object.keys(extras.after).length === 0) {
    return fetchFn;
  }
  const keys = [...Object.keys(extras.before), ...Object.keys(extras.after)].map((key) =>
    `${JSON.stringify(key)}:`
  );
  const beforeText = JSON.stringify(extras.before).slice(1, -1);
  const afterText = JSON.stringify(extras.after).slice(1, -1);
  return (input, init) => {
    if (init && typeof init.body === "string" && init.body.startsWith("{")) {
      const spliced = spliceBody(init.body, keys, beforeText, afterText);
      if (spliced !== null) return fetchFn(input, { ...init, body: spliced });
      let parsed: unknown;
      try {
        parsed = JSON.parse(init.body);
      } catch {
        return fetchFn(input, init);
      }
      if (isRecord(parsed)) {
        return fetchFn(input, { ...init, body: JSON.stringify(mergeBody(parsed, extras)) });
      }
    }
    return fetchFn(input, init);
  };
}

/**
 * `fetchFn` calling `onActivity` when the request goes out, when the response arrives and on
 * each chunk of its body.
 */
export function withActivity(fetchFn: FetchLike, onActivity?: () => void): FetchLike {
  if (!onActivity) return fetchFn;
  return async (input, init) => {
    onActivity();
    const response = await fetchFn(input, init);
    onActivity();
    if (!response.body) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          onActivity();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** A random key in every marker (made on first use), so text a user wrote never matches one. */
let markerKey: string | null = null;

function rawMarkerKey(): string {
  return markerKey ??= crypto.randomUUID().replaceAll("-", "");
}

/**
 * The text a prompt part stands as in place of the raw part at `index` (see {@link withRawParts}):
 * control characters and a random key, so it never matches text a user wrote.
 */
export function rawPartMarker(index: number): string {
  return `\u0000bub-part-${rawMarkerKey()}-${index}\u0000`;
}

/**
 * A marker as JSON text: in a text part (`{"type":"text","text":"…"}`) or as a whole string
 * content (a user message of one part is sent as a string).
 */
function rawPartPattern(key: string): RegExp {
  const marker = `"\\\\u0000bub-part-${key}-(\\d+)\\\\u0000"`;
  return new RegExp(`\\{"type":"text","text":${marker}\\}|${marker}`, "g");
}

/**
 * Wraps `fetch` so each marker text part in a POST's JSON body is replaced by the JSON of the
 * raw part it stands for (a string content of one marker becomes a one-part array): media parts
 * reach a chat-completions endpoint exactly as given, whatever the SDK's converter would accept.
 * No parts: `fetchFn` itself (text-only requests are sent byte for byte as before).
 */
export function withRawParts(fetchFn: FetchLike, parts: readonly unknown[]): FetchLike {
  if (parts.length === 0) return fetchFn;
  const json = parts.map((part) => JSON.stringify(part));
  const key = rawMarkerKey();
  const pattern = rawPartPattern(key);
  return (input, init) => {
    if (init && typeof init.body === "string" && init.body.includes(key)) {
      const body = init.body.replace(pattern, (match, inPart?: string, inString?: string) => {
        const part = json[Number(inPart ?? inString)];
        if (part === undefined) return match;
        return inPart !== undefined ? part : `[${part}]`;
      });
      return fetchFn(input, { ...init, body });
    }
    return fetchFn(input, init);
  };
}

/**
 * `fetchFn` whose response bodies fail with {@link answerTooLarge} when one SSE event (the bytes
 * since the last blank line) grows past `maxBytes`: the SSE parsers behind it (the AI SDK's, the
 * tool-call merge) keep an unfinished line or event in memory, so a stream that never ends one
 * would grow them without bound. Lines end with `\n` or `\r\n`.
 */
export function withEventLimit(fetchFn: FetchLike, maxBytes: number): FetchLike {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    if (!response.body) return response;
    const events = new EventBytes();
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (events.add(chunk) > maxBytes) controller.error(answerTooLarge(maxBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Counts the bytes of the SSE event not ended yet (line feeds found with `indexOf`). */
class EventBytes {
  /** Bytes since the last blank line. */
  #pending = 0;
  /** Bytes of the current line so far, and its last byte. */
  #line = 0;
  #last = 0;

  /** Takes the next chunk; returns the bytes of the event not ended yet. */
  add(chunk: Uint8Array): number {
    let at = 0;
    for (;;) {
      const lf = chunk.indexOf(10, at);
      const end = lf < 0 ? chunk.length : lf;
      if (end > at) {
        this.#line += end - at;
        this.#last = chunk[end - 1]!;
      }
      if (lf < 0) break;
      const blank = this.#line === 0 || (this.#line === 1 && this.#last === 13);
      this.#pending = blank ? 0 : this.#pending + this.#line + 1;
      this.#line = 0;
      at = lf + 1;
    }
    return this.#pending + this.#line;
  }
}
