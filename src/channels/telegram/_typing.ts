/**
 * The typing indicator of the Telegram channel: a per-chat loop sending the `typing` chat action
 * every few seconds while a turn runs (spec/builtin.md §10.5).
 *
 * @module
 */
import { getLogger } from "../../_internal/log.ts";

const logger = getLogger(["bub", "channels", "telegram"]);

/** Sends one `typing` action to a chat; rejects when it fails or `signal` aborts. */
export type SendTyping = (chatId: string, signal: AbortSignal) => Promise<void>;

interface TypingLoop {
  controller: AbortController;
  done: Promise<void>;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const finish = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    signal.addEventListener("abort", finish, { once: true });
  });
}

/** The running typing loops of one channel, at most one per chat. */
export class TypingIndicators {
  #loops = new Map<string, TypingLoop>();
  #send: SendTyping;
  #intervalMs: number;

  constructor(send: SendTyping, intervalMs: number) {
    this.#send = send;
    this.#intervalMs = intervalMs;
  }

  /** A lifespan showing "typing" in `chatId` from `enter()` until disposal. */
  lifespan(chatId: string): TypingLifespan {
    return new TypingLifespan(this, chatId);
  }

  /** True while a loop runs for `chatId`. */
  active(chatId: string): boolean {
    return this.#loops.has(chatId);
  }

  /** Starts the loop for `chatId`; false when one already runs (nested use). */
  startLoop(chatId: string): boolean {
    if (this.#loops.has(chatId)) return false;
    const controller = new AbortController();
    const done = this.#run(chatId, controller.signal);
    this.#loops.set(chatId, { controller, done });
    return true;
  }

  /** Stops the loop for `chatId` and waits for it. */
  async stopLoop(chatId: string): Promise<void> {
    const loop = this.#loops.get(chatId);
    if (!loop) return;
    this.#loops.delete(chatId);
    loop.controller.abort();
    await loop.done;
  }

  /** Stops every loop. */
  async cancelAll(): Promise<void> {
    await Promise.all([...this.#loops.keys()].map((chatId) => this.stopLoop(chatId)));
  }

  async #run(chatId: string, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.#send(chatId, signal);
      } catch (error) {
        if (!signal.aborted) {
          logger.error("telegram.typing failed chat_id={chatId} error={error}", { chatId, error });
        }
        return;
      }
      await pause(this.#intervalMs, signal);
    }
  }
}

/**
 * A message lifespan: `enter()` starts the chat's typing loop unless one already runs (then the
 * lifespan is a no-op); disposal stops the loop it started. Disposing without entering does nothing.
 *
 * @example
 * ```ts
 * import { TelegramChannel, type TypingLifespan } from "@bub/core/channels";
 * const channel = new TelegramChannel({ handler: async () => {}, token: "123:abc", allowUsers: ["42"] });
 * const typing: TypingLifespan = channel.typingLifespan("42");
 * console.log(typing.chatId);
 * ```
 */
export class TypingLifespan implements AsyncDisposable {
  /** The chat it shows typing in. */
  readonly chatId: string;
  #owner: TypingIndicators;
  #started = false;

  /** A lifespan for `chatId` whose loop `owner` runs (use `TelegramChannel.typingLifespan`). */
  constructor(owner: TypingIndicators, chatId: string) {
    this.#owner = owner;
    this.chatId = chatId;
  }

  /** Starts showing "typing" (no-op when the chat already shows it). */
  enter(): Promise<void> {
    if (!this.#started) this.#started = this.#owner.startLoop(this.chatId);
    return Promise.resolve();
  }

  /** Stops the loop this lifespan started. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.#owner.stopLoop(this.chatId);
  }
}
