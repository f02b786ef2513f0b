/**
 * How a Chat SDK channel shows a streamed turn (`stream_output`): the text deltas are handed to
 * the SDK's `thread.post` as they arrive (the adapter streams natively or posts once and edits),
 * and the answer text is remembered so the turn's final outbound message is not posted again.
 *
 * @module
 */
import type { Thread } from "chat";
import type { StreamEvent } from "../../kernel/stream_events.ts";

/** An async iterable of strings fed by {@link push} until {@link end}. */
class TextQueue implements AsyncIterable<string> {
  #items: string[] = [];
  #ended = false;
  #wake: (() => void) | null = null;

  push(text: string): void {
    this.#items.push(text);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      if (this.#items.length > 0) {
        yield this.#items.splice(0).join("");
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = null;
    }
  }
}

/** The answers already streamed to each chat (consumed by the matching outbound message). */
export class StreamedAnswers {
  readonly #byChat = new Map<string, string[]>();

  /** Remembers that `text` was streamed to `chatId`. */
  add(chatId: string, text: string): void {
    const list = this.#byChat.get(chatId) ?? [];
    list.push(text.trim());
    // Only the latest few matter: an answer is sent right after its stream ends.
    this.#byChat.set(chatId, list.slice(-8));
  }

  /** True (and forgotten) when `text` was streamed to `chatId`. */
  take(chatId: string, text: string): boolean {
    const list = this.#byChat.get(chatId);
    const index = list?.indexOf(text.trim()) ?? -1;
    if (index < 0) return false;
    list!.splice(index, 1);
    if (list!.length === 0) this.#byChat.delete(chatId);
    return true;
  }
}

/** Callbacks of {@link postStreamed}. */
export interface StreamPostHooks {
  /** The whole text was posted. */
  posted(text: string): void;
  /** Posting failed (the final outbound message then posts the answer). */
  failed(error: unknown): void;
}

/** Re-yields `stream`, posting its text to `thread` as it arrives. */
export async function* postStreamed(
  thread: Thread,
  stream: AsyncIterable<StreamEvent>,
  hooks: StreamPostHooks,
): AsyncGenerator<StreamEvent> {
  const texts = new TextQueue();
  let posting: Promise<boolean> | null = null;
  let full = "";
  try {
    for await (const event of stream) {
      if (event.kind === "text" && typeof event.data.delta === "string" && event.data.delta) {
        full += event.data.delta;
        posting ??= thread.post(texts).then(() => true, (error: unknown) => {
          hooks.failed(error);
          return false;
        });
        texts.push(event.data.delta);
      }
      yield event;
    }
  } finally {
    texts.end();
    if (posting && await posting && full.trim() !== "") hooks.posted(full);
  }
}
