/**
 * Channels whose implementation is imported when first used (started, sent to, asked to admit or
 * render a stream), so that `provideChannels` stays synchronous while importing `@bub/core` loads
 * none of the channel implementations: {@link ChannelLoader} does the loading and delegating,
 * {@link LazyChannel} is a plain channel over it (Telegram).
 *
 * @module
 */
import type { AdmitDecision } from "../kernel/channel.ts";
import type { ChannelMessage } from "../kernel/channel_message.ts";
import type { Envelope } from "../kernel/envelope.ts";
import type { StreamEvent } from "../kernel/stream.ts";
import { Channel, type ChannelAdmitArgs } from "../channels/channel.ts";
import { lazyImport } from "../_internal/lazy.ts";

/** Imports and creates a channel once, on first use, and delegates the async members to it. */
export class ChannelLoader<C extends Channel = Channel> {
  readonly #load: () => Promise<C>;
  #loaded: C | null = null;

  /**
   * Creates the object (nothing is imported yet).
   *
   * @param load imports the implementation and creates the channel (called once)
   */
  constructor(load: () => Promise<C>) {
    this.#load = lazyImport(async () => {
      const channel = await load();
      this.#loaded = channel;
      return channel;
    });
  }

  /** The implementation once loaded, else null. */
  get loaded(): C | null {
    return this.#loaded;
  }

  /** The implementation, imported and created on the first call. */
  channel(): Promise<C> {
    return this.#load();
  }

  /** Loads the implementation and starts it. */
  async start(stop: AbortController): Promise<void> {
    await (await this.channel()).start(stop);
  }

  /** Stops the implementation if it was loaded. */
  async stop(): Promise<void> {
    await this.#loaded?.stop();
  }

  /** Sends through the implementation. */
  async send(message: ChannelMessage): Promise<void> {
    await (await this.channel()).send(message);
  }

  /** The implementation's rendering of a streamed turn. */
  async *streamEvents(
    message: Envelope,
    stream: AsyncIterable<StreamEvent>,
  ): AsyncGenerator<StreamEvent> {
    yield* (await this.channel()).streamEvents(message, stream);
  }

  /** The implementation's admission decision. */
  async admitMessage(args: ChannelAdmitArgs): Promise<AdmitDecision | null> {
    return await (await this.channel()).admitMessage(args);
  }
}

/** Options of {@link LazyChannel}. */
export interface LazyChannelOptions {
  /** The channel's name (the implementation must have the same). */
  name: string;
  /** Whether the channel is enabled, answered without loading it. */
  enabled: () => boolean;
  /** Whether bursts of its messages are merged, answered without loading it. */
  needsDebounce: boolean;
  /** Imports the implementation and creates the channel (called once). */
  load: () => Promise<Channel>;
}

/** A channel that imports and creates its implementation on first use. */
export class LazyChannel extends Channel {
  /** The channel's name. */
  readonly name: string;
  readonly #options: LazyChannelOptions;
  readonly #loader: ChannelLoader;

  /**
   * Creates the object (nothing is imported yet).
   *
   * @param options name, the synchronous answers and the loader
   */
  constructor(options: LazyChannelOptions) {
    super();
    this.name = options.name;
    this.#options = options;
    this.#loader = new ChannelLoader(options.load);
  }

  /** The implementation once loaded, else null. */
  get loaded(): Channel | null {
    return this.#loader.loaded;
  }

  /** The implementation, imported and created on the first call (not started). */
  implementation(): Promise<Channel> {
    return this.#loader.channel();
  }

  /** Whether bursts of messages are merged. */
  override get needsDebounce(): boolean {
    return this.#options.needsDebounce;
  }

  /** Whether the channel is enabled. */
  override get enabled(): boolean {
    return this.#options.enabled();
  }

  /** Loads the implementation and starts it. */
  start(stop: AbortController): Promise<void> {
    return this.#loader.start(stop);
  }

  /** Stops the implementation if it was loaded. */
  stop(): Promise<void> {
    return this.#loader.stop();
  }

  /** Sends through the implementation. */
  override send(message: ChannelMessage): Promise<void> {
    return this.#loader.send(message);
  }

  /** The implementation's rendering of a streamed turn. */
  override streamEvents(
    message: Envelope,
    stream: AsyncIterable<StreamEvent>,
  ): AsyncIterable<StreamEvent> {
    return this.#loader.streamEvents(message, stream);
  }

  /** The implementation's admission decision. */
  override admitMessage(args: ChannelAdmitArgs): Promise<AdmitDecision | null> {
    return this.#loader.admitMessage(args);
  }
}
