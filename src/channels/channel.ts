/**
 * The `Channel` base class and its two marker subclasses, {@link Interface} (user-facing
 * surfaces such as the CLI) and {@link Lifecycle} (background runtimes started alongside the
 * channels).
 *
 * @module
 */
import type { AdmitDecision, ChannelContract, TurnSnapshot } from "../kernel/channel.ts";
import type { ChannelMessage } from "../kernel/channel_message.ts";
import type { Envelope } from "../kernel/envelope.ts";
import type { StreamEvent } from "../kernel/stream.ts";

/**
 * Arguments of {@link Channel.admitMessage}.
 *
 * @example
 * ```ts
 * import { admitDecision, type AdmitDecision } from "@bub/core/kernel";
 * import { Channel, type ChannelAdmitArgs } from "@bub/core/channels";
 * class OneAtATime extends Channel {
 *   readonly name = "one-at-a-time";
 *   async start(): Promise<void> {}
 *   async stop(): Promise<void> {}
 *   override admitMessage({ turn }: ChannelAdmitArgs): Promise<AdmitDecision | null> {
 *     return Promise.resolve(turn.isRunning ? admitDecision("drop", "busy") : null);
 *   }
 * }
 * ```
 */
export interface ChannelAdmitArgs {
  /** The resolved session id. */
  sessionId: string;
  /** The inbound message. */
  message: Envelope;
  /** What the session looks like right now. */
  turn: TurnSnapshot;
}

/**
 * A source and sink of messages, with the defaults of the channel contract: no debouncing,
 * enabled, `send` does nothing, `streamEvents` returns the stream unchanged and `admitMessage`
 * has no opinion. Subclasses set `name` and implement `start` and `stop`.
 *
 * @example Subclassing
 * ```ts
 * import { Channel, ChannelMessage } from "@bub/core";
 * class LogChannel extends Channel {
 *   readonly name = "log";
 *   start(_stop: AbortController): Promise<void> { return Promise.resolve(); }
 *   stop(): Promise<void> { return Promise.resolve(); }
 *   override send(message: ChannelMessage): Promise<void> {
 *     console.log(message.content);
 *     return Promise.resolve();
 *   }
 * }
 * ```
 */
export abstract class Channel implements ChannelContract, AsyncDisposable {
  /** The routing and dedupe key (unique among channels). */
  abstract readonly name: string;

  /**
   * Starts listening and returns promptly (run listeners in the background: channels start one
   * after the other). Abort `stop` to ask the manager to shut down.
   */
  abstract start(stop: AbortController): Promise<void>;

  /** Stops listening; must not throw when the channel never started. */
  abstract stop(): Promise<void>;

  /** True when bursts of inbound messages should be merged. Default false. */
  get needsDebounce(): boolean {
    return false;
  }

  /** False when the channel cannot run (e.g. missing credentials). Default true. */
  get enabled(): boolean {
    return true;
  }

  /** Sends an outbound message. The default does nothing. */
  send(_message: ChannelMessage): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Wraps a model stream to render it live; must re-yield every event. The default returns the
   * stream unchanged.
   */
  streamEvents(_message: Envelope, stream: AsyncIterable<StreamEvent>): AsyncIterable<StreamEvent> {
    return stream;
  }

  /** A channel-level admission decision for `message`. The default has none (null). */
  admitMessage(_args: ChannelAdmitArgs): Promise<AdmitDecision | null> {
    return Promise.resolve(null);
  }

  /** Stops the channel. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

/**
 * A user-facing I/O surface (the CLI). Enabled only when named: `all` leaves it out.
 *
 * @example
 * ```ts
 * import { Interface } from "@bub/core/channels";
 * class Repl extends Interface {
 *   readonly name = "repl";
 *   start(_stop: AbortController): Promise<void> { return Promise.resolve(); }
 *   stop(): Promise<void> { return Promise.resolve(); }
 * }
 * ```
 */
export abstract class Interface extends Channel {}

/**
 * A background runtime managed alongside the channels (e.g. `mcp.lifecycle`). Naming any
 * other channel enables every non-excluded lifecycle channel too.
 *
 * @example
 * ```ts
 * import { Lifecycle } from "@bub/core/channels";
 * class Heartbeat extends Lifecycle {
 *   readonly name = "heartbeat.lifecycle";
 *   start(_stop: AbortController): Promise<void> { return Promise.resolve(); }
 *   stop(): Promise<void> { return Promise.resolve(); }
 * }
 * ```
 */
export abstract class Lifecycle extends Channel {}
