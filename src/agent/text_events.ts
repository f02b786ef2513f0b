/**
 * Streams made of text rather than a model call: a fixed answer (a comma command's output, an
 * error said to the user), and one turn's stream followed by the next (a recovered turn's answer,
 * then the new message's).
 *
 * @module
 */
import { AsyncStreamEvents, type StreamEvent } from "../kernel/stream.ts";

/** `text` as one text delta and a `final` event with `ok`. */
export function textEvents(text: string, ok: boolean): AsyncStreamEvents {
  async function* events(): AsyncGenerator<StreamEvent> {
    yield { kind: "text", data: { delta: text } };
    yield { kind: "final", data: { text, ok } };
  }
  return new AsyncStreamEvents(events());
}

/** `first`'s events, a blank line, then the events of the stream `next` starts once it ended. */
export function followedBy(
  first: AsyncStreamEvents,
  next: () => Promise<AsyncStreamEvents>,
): AsyncStreamEvents {
  async function* events(): AsyncGenerator<StreamEvent> {
    yield* first;
    yield { kind: "text", data: { delta: "\n\n" } };
    yield* await next();
  }
  return new AsyncStreamEvents(events(), { state: first.state });
}
