/**
 * The builtin plugin's `cli` channel: an {@link Interface} that imports the terminal REPL
 * (`CliChannel`: line reader, panels, stream rendering) when it starts, so that importing
 * `@bub/core` loads none of it.
 *
 * @module
 */
import type { AdmitDecision } from "../kernel/channel.ts";
import type { ChannelMessage } from "../kernel/channel_message.ts";
import type { Envelope } from "../kernel/envelope.ts";
import type { StreamEvent } from "../kernel/stream.ts";
import { type ChannelAdmitArgs, Interface } from "../channels/channel.ts";
import type { CliChannel, CliChannelOptions } from "../channels/cli/cli_channel.ts";
import { ChannelLoader } from "./lazy_channel.ts";

/** The `cli` channel, created from `options` on first use. */
export class LazyCliChannel extends Interface {
  /** `cli`. */
  readonly name: string = "cli";
  readonly #loader: ChannelLoader<CliChannel>;
  /** `setMetadata` calls made before the channel was created. */
  #metadata: { sessionId?: string; chatId?: string } = {};

  /**
   * Creates the object (nothing is imported yet).
   *
   * @param options the `CliChannel` options, or a function making them when the channel is
   *   created (e.g. to import what they need only then)
   */
  constructor(
    options: CliChannelOptions | (() => CliChannelOptions | Promise<CliChannelOptions>),
  ) {
    super();
    this.#loader = new ChannelLoader(async () => {
      const { CliChannel } = await import("../channels/cli/cli_channel.ts");
      const channel = new CliChannel(typeof options === "function" ? await options() : options);
      channel.setMetadata(this.#metadata);
      return channel;
    });
  }

  /** The `CliChannel` once created, else null. */
  get loaded(): CliChannel | null {
    return this.#loader.loaded;
  }

  /** The session id of typed messages (`cli_session` until set). */
  get sessionId(): string {
    return this.#loader.loaded?.sessionId ?? this.#metadata.sessionId ?? "cli_session";
  }

  /** Overrides the session and chat ids of typed messages (e.g. from `bub chat` options). */
  setMetadata(metadata: { sessionId?: string; chatId?: string }): void {
    const loaded = this.#loader.loaded;
    if (loaded) loaded.setMetadata(metadata);
    else {
      this.#metadata = {
        sessionId: metadata.sessionId || this.#metadata.sessionId,
        chatId: metadata.chatId || this.#metadata.chatId,
      };
    }
  }

  /** Ctrl-C (see `CliChannel.interrupt`); nothing before the channel started. */
  interrupt(): void {
    this.#loader.loaded?.interrupt();
  }

  /** Imports the REPL and starts it. */
  start(stop: AbortController): Promise<void> {
    return this.#loader.start(stop);
  }

  /** Stops the REPL if it was started. */
  stop(): Promise<void> {
    return this.#loader.stop();
  }

  /** Shows error messages (see `CliChannel.send`). */
  override send(message: ChannelMessage): Promise<void> {
    return this.#loader.send(message);
  }

  /** Renders a streamed turn (see `CliChannel.streamEvents`). */
  override streamEvents(
    message: Envelope,
    stream: AsyncIterable<StreamEvent>,
  ): AsyncIterable<StreamEvent> {
    return this.#loader.streamEvents(message, stream);
  }

  /** Echoes and admits typed input (see `CliChannel.admitMessage`). */
  override admitMessage(args: ChannelAdmitArgs): Promise<AdmitDecision | null> {
    return this.#loader.admitMessage(args);
  }
}
