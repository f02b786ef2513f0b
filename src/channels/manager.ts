/**
 * `ChannelManager`: runs the enabled channels, admits and schedules inbound messages per session,
 * and routes outbound messages and streams back to channels. The way in (unknown channels,
 * per-session debounce, the FIFO) is `_intake.ts`; admission is `_admission.ts`; turn scheduling
 * is `_scheduler.ts`.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import type {
  AdmitDecision,
  Channel,
  ChannelRouter,
  MessageHandler,
  TurnSnapshot,
} from "../kernel/channel.ts";
import type { Envelope } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";
import type { KernelFramework } from "../kernel/framework.ts";
import type { StreamEvent } from "../kernel/stream.ts";
import { admitInbound } from "./_admission.ts";
import { type ChannelClock, systemClock } from "./_debounce.ts";
import { debounceTimings, Intake } from "./_intake.ts";
import { outboundFor, targetOf } from "./_outbound.ts";
import { parseChannelNames, selectChannels } from "./_selection.ts";
import { TurnScheduler } from "./_scheduler.ts";

export type { ChannelClock } from "./_debounce.ts";

const logger = getLogger(["bub", "channels"]);

/**
 * What the manager needs of the framework (a `BubFramework` or `KernelFramework`).
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import { ChannelManager, type ChannelFramework } from "@bub/core/channels";
 * const framework: ChannelFramework = new BubFramework();
 * const manager = new ChannelManager(framework);
 * ```
 */
export type ChannelFramework = Pick<
  KernelFramework,
  | "getChannels"
  | "bindChannelRouter"
  | "running"
  | "resolveSession"
  | "admitMessage"
  | "steerMessage"
  | "processInbound"
  | "getSteeringInbox"
  | "hookRuntime"
>;

/**
 * Options of {@link ChannelManager}; the settings layer feeds them from `BUB_*` / config.yml.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import { ChannelManager, type ChannelManagerOptions } from "@bub/core/channels";
 * const options: ChannelManagerOptions = { enabledChannels: ["telegram"], streamOutput: true };
 * const manager = new ChannelManager(new BubFramework(), options);
 * ```
 */
export interface ChannelManagerOptions {
  /** Channel names (a comma-separated string or a list; `all`, `!name`). Default `"all"`. */
  enabledChannels?: string | readonly string[] | null;
  /** Consume the model as a stream (rendered by the channel's `streamEvents`). Default false. */
  streamOutput?: boolean;
  /** Debounce quiet time in seconds. Default 1. */
  debounceSeconds?: number;
  /** Longest wait for a burst started by a non-active message, in seconds. Default 10. */
  maxWaitSeconds?: number;
  /** How long a conversation stays active after an active message, in seconds. Default 60. */
  activeTimeWindow?: number;
  /** Time source and timers of the debounce buffers. Default: the system clock. */
  clock?: ChannelClock;
}

/**
 * Options of {@link ChannelManager.listenAndRun}.
 *
 * @example
 * ```ts
 * import { BubFramework } from "@bub/core";
 * import { ChannelManager, type ListenOptions } from "@bub/core/channels";
 * const bub = new BubFramework();
 * const options: ListenOptions = { signal: AbortSignal.abort() }; // stop at once
 * await new ChannelManager(bub, { enabledChannels: [] }).listenAndRun(options);
 * ```
 */
export interface ListenOptions {
  /** Stops the loop (like a channel aborting its stop controller). */
  signal?: AbortSignal;
  /**
   * Runs once every enabled channel has started, inside the running scope, while messages are
   * served (not awaited; a failure is logged). `bub gateway` resumes interrupted turns there.
   */
  onStarted?: () => unknown;
}

/**
 * The channel scheduler. Messages from channels are debounced (when the channel asks for it),
 * queued in one FIFO, admitted per session and run as concurrent turn tasks; `follow_up`
 * messages wait in the session's FIFO and run one at a time after its turns end.
 *
 * @example Serving channels until a channel asks to stop
 * ```ts ignore
 * import { BubFramework, ChannelManager } from "@bub/core";
 * const bub = new BubFramework();
 * await bub.loadHooks();
 * const manager = new ChannelManager(bub, { enabledChannels: "all" });
 * await manager.listenAndRun({ signal: AbortSignal.timeout(60_000) });
 * ```
 */
export class ChannelManager implements ChannelRouter {
  /** The framework whose turns are run. */
  readonly framework: ChannelFramework;
  /** Consume the model as a stream. */
  readonly streamOutput: boolean;
  /** The receive handler given to channels; unknown channels are ignored with a warning. */
  readonly onReceive: MessageHandler = (message) => this.#intake.receive(message);
  #channels: Map<string, Channel>;
  #names: string[];
  #intake: Intake;
  #scheduler: TurnScheduler;

  /**
   * Collects the framework's channels, handing them {@link onReceive}.
   *
   * @param framework the framework; its `provideChannels` hooks receive {@link onReceive}
   * @param options enabled channels, streaming and debounce settings
   * @throws {TypeError} for malformed channel names
   * @throws {RangeError} for negative or non-numeric timings
   */
  constructor(framework: ChannelFramework, options: ChannelManagerOptions = {}) {
    this.framework = framework;
    this.streamOutput = options.streamOutput ?? false;
    this.#names = parseChannelNames(options.enabledChannels ?? "all");
    const timings = debounceTimings(options);
    this.#scheduler = new TurnScheduler(framework, this.streamOutput);
    this.#channels = framework.getChannels(this.onReceive);
    this.#intake = new Intake(this.#channels, timings, options.clock ?? systemClock);
  }

  /** Every provided channel by name (enabled or not). */
  get channels(): ReadonlyMap<string, Channel> {
    return this.#channels;
  }

  /** The channels to start, per the selection rules (`all` skips Interfaces; Lifecycles follow). */
  enabledChannels(): Channel[] {
    return selectChannels(this.#channels, this.#names);
  }

  /** The session's turn snapshot, or null when the manager holds nothing for it. */
  sessionSnapshot(sessionId: string): TurnSnapshot | null {
    return this.#scheduler.snapshot(sessionId);
  }

  /**
   * Binds itself as the framework's router, enters `framework.running()`, starts the enabled
   * channels one after the other, then admits and schedules queued messages until a channel
   * aborts its stop controller or `signal` aborts. Always unbinds and {@link shutdown}s.
   */
  async listenAndRun(options: ListenOptions = {}): Promise<void> {
    const stop = new AbortController();
    const wait = options.signal ? AbortSignal.any([stop.signal, options.signal]) : stop.signal;
    this.#scheduler.reopen();
    this.#intake.open();
    this.framework.bindChannelRouter(this);
    try {
      const scope = await this.framework.running();
      try {
        await this.#loop(stop, wait, options.onStarted);
      } catch (error) {
        await scope.close(error);
        throw error;
      }
      await scope.close();
    } finally {
      this.framework.bindChannelRouter(null);
    }
  }

  async #loop(
    stop: AbortController,
    wait: AbortSignal,
    onStarted?: () => unknown,
  ): Promise<void> {
    try {
      for (const channel of this.enabledChannels()) {
        logger.info("Starting channel {name}", { name: channel.name });
        await channel.start(stop);
      }
      if (onStarted) {
        void Promise.resolve().then(onStarted).catch((error) =>
          logger.error("Channel manager onStarted failed: {error}", { error })
        );
      }
      while (true) {
        let message: Envelope;
        try {
          message = await this.#intake.next(wait);
        } catch (error) {
          if (!wait.aborted) throw error;
          logger.info("Channel manager received a shutdown signal");
          break;
        }
        if (await this.admit(message)) void this.schedule(message);
      }
    } catch (error) {
      logger.error("Channel manager stopped on error: {error}", { error });
      throw error;
    } finally {
      this.framework.bindChannelRouter(null);
      await this.shutdown();
    }
  }

  /**
   * Admission: resolves the session (written back to `message.sessionId`), asks the
   * `admitMessage` hooks and applies the decision; true means "schedule now". The listen loop
   * calls it for every queued message.
   */
  admit(message: Envelope): Promise<boolean> {
    const scheduler = this.#scheduler;
    return admitInbound({
      framework: this.framework,
      controllerFor: (sessionId) => scheduler.controllerFor(sessionId),
      dropIfEmpty: (controller) => scheduler.dropIfEmpty(controller),
    }, message);
  }

  /**
   * Runs `message` (already admitted, carrying its resolved `sessionId`) as a turn task of its
   * session, with its own abort signal. Resolves when the turn has ended; never rejects (the
   * framework logs and reports failures). When the session has no running turn left, its
   * oldest pending message is scheduled next.
   */
  schedule(message: Envelope): Promise<void> {
    return this.#scheduler.schedule(message);
  }

  /**
   * Clears the session's pending messages and cancels (and awaits) its running turns, except the
   * turn calling `quit` itself.
   */
  async quit(sessionId: string): Promise<void> {
    const count = await this.#scheduler.quit(sessionId);
    logger.info("session.quit session_id={sessionId} cancelled {count} tasks", {
      sessionId,
      count,
    });
  }

  /**
   * Cancels every running turn (awaiting them) and drops pending and buffered messages, then
   * stops every enabled channel (a failing `stop` is logged). Inbound messages are ignored from
   * then on, until the next {@link listenAndRun}.
   */
  async shutdown(): Promise<void> {
    this.#intake.close();
    await this.#scheduler.cancelAll();
    this.#intake.dropBuffered();
    for (const channel of this.enabledChannels()) {
      try {
        await channel.stop();
      } catch (error) {
        logger.error("Failed to stop channel {name}: {error}", { name: channel.name, error });
      }
    }
  }

  /**
   * Sends `message` to its `outputChannel` (else `channel`) as a `ChannelMessage`; false when
   * the target is absent or unknown (so `outputChannel: "null"` suppresses delivery).
   */
  async dispatchOutput(message: Envelope): Promise<boolean> {
    const target = targetOf(message);
    const channel = target === null ? undefined : this.#channels.get(target);
    if (target === null || !channel) return false;
    const outbound = outboundFor(message, target);
    await channel.send?.(outbound);
    return true;
  }

  /** The target channel's `streamEvents` wrapper, or `stream` unchanged. */
  wrapStream(message: Envelope, stream: AsyncIterable<StreamEvent>): AsyncIterable<StreamEvent> {
    const target = targetOf(message);
    const channel = target === null ? undefined : this.#channels.get(target);
    return channel?.streamEvents ? channel.streamEvents(message, stream) : stream;
  }

  /** The decision of the message's own `channel` (not its output channel), or null. */
  async admitChannelMessage(
    args: { sessionId: string; message: Envelope; turn: TurnSnapshot },
  ): Promise<AdmitDecision | null> {
    const name = inboundOf(args.message).channel;
    const channel = name !== null ? this.#channels.get(name) : undefined;
    if (!channel?.admitMessage) return null;
    return (await channel.admitMessage(args)) ?? null;
  }
}
