/**
 * A chat's event stream read with `fetch` (so the token goes in the `Authorization` header,
 * which `EventSource` cannot send, instead of a URL): server-sent events parsed as they arrive,
 * and a reconnect after a dropped connection, like `EventSource` does.
 *
 * @module
 */
import { authorizedFetch, Unauthorized } from "./auth.ts";

/** One server-sent event: its `event:` name and its `data:` lines joined. */
export interface SseEvent {
  kind: string;
  data: string;
}

/** The complete events at the start of `buffer` and the incomplete rest (comments skipped). */
export function parseSse(buffer: string): { events: SseEvent[]; rest: string } {
  // A final "\r" may be the first half of a "\r\n": it waits for the next piece.
  const held = buffer.endsWith("\r") ? "\r" : "";
  const text = buffer.slice(0, buffer.length - held.length).replace(/\r\n?/g, "\n");
  const events: SseEvent[] = [];
  let start = 0;
  for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n", start)) {
    let kind = "message";
    const data: string[] = [];
    for (const line of text.slice(start, end).split("\n")) {
      const colon = line.indexOf(":");
      if (colon === 0) continue;
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") kind = value;
      else if (field === "data") data.push(value);
    }
    if (data.length) events.push({ kind, data: data.join("\n") });
    start = end + 2;
  }
  return { events, rest: text.slice(start) + held };
}

/**
 * Reads the events of `path` until the returned function is called, reconnecting after a
 * dropped connection (1 s, growing to 10 s); a refused token ends it through `onError`.
 */
export function openEventStream(
  path: string,
  onEvent: (event: SseEvent) => void,
  onError: (message: string) => void,
): () => void {
  const controller = new AbortController();
  const { signal } = controller;
  void (async () => {
    let delay = 1000;
    while (!signal.aborted) {
      try {
        const response = await authorizedFetch(path, { signal });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        delay = 1000;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        while (true) {
          const { value, done } = await reader.read();
          if (done) break;
          const { events, rest } = parseSse(buffer + value);
          buffer = rest;
          for (const event of events) onEvent(event);
        }
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof Unauthorized) return onError(error.message);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10_000);
    }
  })();
  return () => controller.abort();
}
