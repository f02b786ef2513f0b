/**
 * `MemoryChannel`: an in-process channel for tests and embedding. It pushes inbound messages
 * through the manager's handler and records what is sent and streamed to it.
 *
 * @module
 */
import type { AdmitDecision, MessageHandler } from "../kernel/channel.ts";
import { ChannelMessage, type ChannelMessageInit } from "../kernel/channel_message.ts";
import { type Envelope, sessionKey } from "../kernel/envelope.ts";
import type { StreamEvent } from "../kernel/stream.ts";
import { Channel, type ChannelAdmitArgs } from "./channel.ts";

/**
 * Options of {@link MemoryChannel}.
 *
 * @example
 * ```ts
 * import { MemoryChannel, type MemoryChannelOptions } from "@bub/core/channels";
 * const options: MemoryChannelOptions = { name: "test", needsDebounce: false };
 * const channel = new MemoryChannel(async () => {}, options);
 * ```
 */
export interface MemoryChannelOptions {
  /** The channel name. Default `"memory"`. */
  name?: string;
  /** Ask the manager to debounce bursts. Default false. */
  needsDebounce?: boolean;
  /** Whether the channel can run. Default true. */
  enabled?: boolean;
  /** A channel-level admission policy. Default: none (null). */
  admit?: (args: ChannelAdmitArgs) => AdmitDecision | null | Promise<AdmitDecision | null>;
}

/**
 * A message to push: the fields of a `ChannelMessage`, all optional except `content`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Envelope } from "@bub/core";
 * import { MemoryChannel, type MemoryInbound } from "@bub/core/channels";
 * const received: Envelope[] = [];
 * const channel = new MemoryChannel(async (message) => void received.push(message), { name: "test" });
 * const inbound: MemoryInbound = { chatId: "room", content: "hi" };
 * const message = await channel.push(inbound);
 * assert.equal(message.sessionId, "test:room");
 * assert.equal(received.length, 1);
 * ```
 */
export type MemoryInbound = Partial<ChannelMessageInit> & { content: string };

/**
 * One stream that passed through {@link MemoryChannel.streamEvents}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AsyncStreamEvents } from "@bub/core";
 * import { MemoryChannel, type RecordedStream } from "@bub/core/channels";
 * const channel = new MemoryChannel(async () => {});
 * const events = (async function* () {
 *   yield { kind: "text" as const, data: { delta: "hi" } };
 * })();
 * for await (const event of channel.streamEvents({ content: "q" }, new AsyncStreamEvents(events))) {
 *   console.log(event.kind);
 * }
 * const [recorded]: RecordedStream[] = channel.streams;
 * assert.equal(recorded?.events.length, 1);
 * ```
 */
export interface RecordedStream {
  /** The message whose turn produced it. */
  readonly message: Envelope;
  /** The events, in order (grows while the stream runs). */
  readonly events: StreamEvent[];
}

interface SentWaiter {
  count: number;
  resolve(messages: ChannelMessage[]): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  onAbort(): void;
}

/**
 * A channel living in memory: {@link push} hands a message to the manager; outbound messages land
 * in {@link sent} and streamed events in {@link streams}; {@link requestStop} asks the manager to
 * shut down, as a terminal does on quit.
 *
 * @example Standing in for a chat app in a test
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChannelMessage, type Envelope } from "@bub/core";
 * import { MemoryChannel } from "@bub/core/channels";
 * const inbox: Envelope[] = [];
 * const channel = new MemoryChannel(async (message) => void inbox.push(message), { name: "chat" });
 * await channel.push({ chatId: "room", content: "ping" }); // what a user types
 * await channel.send(new ChannelMessage({ sessionId: "chat:room", channel: "chat", content: "pong" }));
 * const [reply] = await channel.waitForSent(1); // what the bot answered
 * assert.equal(inbox.length, 1);
 * assert.equal(reply?.content, "pong");
 * ```
 *
 * A manager drives it like any channel: see the `@bub/core/channels` module example.
 */
export class MemoryChannel extends Channel {
  /** The channel name. */
  readonly name: string;
  /** Every message given to {@link send}, in order. */
  readonly sent: ChannelMessage[] = [];
  /** Every stream wrapped by {@link streamEvents}, in order. */
  readonly streams: RecordedStream[] = [];
  /** How often `start` and `stop` ran. */
  readonly calls: { start: number; stop: number } = { start: 0, stop: 0 };
  #handler: MessageHandler;
  #options: MemoryChannelOptions;
  #stop: AbortController | null = null;
  #waiters: SentWaiter[] = [];

  /**
   * Creates a channel that pushes messages through `handler`.
   *
   * @param handler the manager's receive handler
   * @param options name, debounce, enabled, admission policy
   */
  constructor(handler: MessageHandler, options: MemoryChannelOptions = {}) {
    super();
    this.#handler = handler;
    this.#options = options;
    this.name = options.name ?? "memory";
  }

  /** True when constructed with `needsDebounce`. */
  override get needsDebounce(): boolean {
    return this.#options.needsDebounce ?? false;
  }

  /** False when constructed with `enabled: false`. */
  override get enabled(): boolean {
    return this.#options.enabled ?? true;
  }

  /** True between `start` and `stop`. */
  get running(): boolean {
    return this.#stop !== null;
  }

  /** Remembers the stop controller. */
  start(stop: AbortController): Promise<void> {
    this.calls.start++;
    this.#stop = stop;
    return Promise.resolve();
  }

  /** Forgets the stop controller; pending {@link waitForSent} calls reject. */
  stop(): Promise<void> {
    this.calls.stop++;
    this.#stop = null;
    for (const waiter of this.#waiters.splice(0)) {
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.reject(
        new Error(`Channel "${this.name}" stopped with ${this.sent.length} messages sent`),
      );
    }
    return Promise.resolve();
  }

  /** Aborts the stop controller given to `start` (a no-op before start). */
  requestStop(): void {
    this.#stop?.abort();
  }

  /**
   * Builds a `ChannelMessage` of this channel (session id default `<name>:<chatId>`, active by
   * default) and hands it to the manager. Returns the message.
   */
  async push(inbound: MemoryInbound | ChannelMessage): Promise<ChannelMessage> {
    const message = inbound instanceof ChannelMessage ? inbound : new ChannelMessage({
      isActive: true,
      ...inbound,
      channel: this.name,
      sessionId: inbound.sessionId ?? sessionKey(this.name, inbound.chatId),
    });
    await this.#handler(message);
    return message;
  }

  /** Records `message`. */
  override send(message: ChannelMessage): Promise<void> {
    this.sent.push(message);
    for (const waiter of [...this.#waiters]) {
      if (this.sent.length < waiter.count) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(this.sent.slice());
    }
    return Promise.resolve();
  }

  /** Re-yields `stream`, recording every event. */
  override async *streamEvents(
    message: Envelope,
    stream: AsyncIterable<StreamEvent>,
  ): AsyncGenerator<StreamEvent> {
    const record: RecordedStream = { message, events: [] };
    this.streams.push(record);
    for await (const event of stream) {
      record.events.push(event);
      yield event;
    }
  }

  /** The decision of the `admit` option, or null. */
  override async admitMessage(args: ChannelAdmitArgs): Promise<AdmitDecision | null> {
    return this.#options.admit ? (await this.#options.admit(args)) ?? null : null;
  }

  /**
   * Resolves with a copy of {@link sent} once it holds at least `count` messages; rejects when
   * `signal` aborts or the channel stops first.
   */
  waitForSent(count: number, options: { signal?: AbortSignal } = {}): Promise<ChannelMessage[]> {
    if (this.sent.length >= count) return Promise.resolve(this.sent.slice());
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: SentWaiter = {
        count,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.#waiters.indexOf(waiter);
          if (index >= 0) this.#waiters.splice(index, 1);
          reject(signal?.reason);
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
    });
  }
}
