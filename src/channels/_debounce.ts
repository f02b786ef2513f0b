/**
 * The per-session debounce buffer of the channel manager: merges bursts of messages from
 * channels that need debouncing.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import { ChannelMessage } from "../kernel/channel_message.ts";
import { contentOf, type Envelope } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";

const logger = getLogger(["bub", "channels"]);

/**
 * Time source and timers of the channel manager; tests inject a fake one.
 *
 * @example
 * ```ts
 * import { ChannelManager, type ChannelClock } from "@bub/core/channels";
 * import { BubFramework } from "@bub/core";
 * const clock: ChannelClock = {
 *   now: () => performance.now(),
 *   setTimeout: (callback, ms) => setTimeout(callback, ms),
 *   clearTimeout: (handle) => clearTimeout(handle as number),
 * };
 * const manager = new ChannelManager(new BubFramework(), { clock, debounceSeconds: 0.5 });
 * ```
 */
export interface ChannelClock {
  /** A monotonic time in milliseconds. */
  now(): number;
  /** Calls `callback` after `ms` milliseconds; returns a handle for {@link clearTimeout}. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a timer made by {@link setTimeout}. */
  clearTimeout(handle: unknown): void;
}

/** The real clock: `performance.now()` and the global timers. */
export const systemClock: ChannelClock = Object.freeze({
  now: (): number => performance.now(),
  setTimeout: (callback: () => void, ms: number): unknown => setTimeout(callback, ms),
  clearTimeout: (handle: unknown): void => clearTimeout(handle as ReturnType<typeof setTimeout>),
});

/** Timings of a {@link DebounceBuffer}, in seconds. */
export interface DebounceTimings {
  /** Quiet time after an active message before the burst is flushed. */
  debounceSeconds: number;
  /** Longest wait for a burst started by a non-active message. */
  maxWaitSeconds: number;
  /** How long after the last active message non-active ones are still accepted. */
  activeTimeWindow: number;
}

/**
 * Buffers one session's messages: commands (content starting with `,`) pass at once; a
 * non-active message outside the active window is dropped; everything else joins the batch,
 * which is merged with `ChannelMessage.fromBatch` and forwarded when the timer fires.
 */
export class DebounceBuffer {
  #forward: (message: Envelope) => void | Promise<void>;
  #timings: DebounceTimings;
  #clock: ChannelClock;
  #batch: Envelope[] = [];
  #lastActive: number | null = null;
  #timer: unknown = null;
  #flushPending = false;

  /** @param forward receives merged messages @param timings the settings @param clock the time source */
  constructor(
    forward: (message: Envelope) => void | Promise<void>,
    timings: DebounceTimings,
    clock: ChannelClock,
  ) {
    this.#forward = forward;
    this.#timings = timings;
    this.#clock = clock;
  }

  /** Messages waiting for the next flush. */
  get size(): number {
    return this.#batch.length;
  }

  /** Handles one inbound message of the session. */
  async handle(message: Envelope): Promise<void> {
    const now = this.#clock.now();
    const inbound = inboundOf(message);
    const sessionId = inbound.sessionId;
    if (inbound.content.startsWith(",")) {
      logger.info("session.receive command session_id={sessionId}", { sessionId });
      await this.#forward(message);
      return;
    }
    const active = inbound.isActive;
    const windowMs = this.#timings.activeTimeWindow * 1000;
    if (!active && (this.#lastActive === null || now - this.#lastActive > windowMs)) {
      this.#lastActive = null;
      logger.info("session.receive ignored session_id={sessionId}", { sessionId });
      return;
    }
    this.#batch.push(message);
    if (active) {
      this.#lastActive = now;
      logger.info("session.receive active session_id={sessionId}", { sessionId });
      this.#arm(this.#timings.debounceSeconds);
    } else if (!this.#flushPending) {
      logger.info("session.receive in active window session_id={sessionId}", { sessionId });
      this.#arm(this.#timings.maxWaitSeconds);
    }
  }

  /** Cancels the timer and drops the batch; returns how many messages were dropped. */
  close(): number {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#flushPending = false;
    const dropped = this.#batch.length;
    this.#batch = [];
    this.#lastActive = null;
    return dropped;
  }

  #arm(seconds: number): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#flushPending = true;
    this.#timer = this.#clock.setTimeout(() => void this.#flush(), seconds * 1000);
  }

  async #flush(): Promise<void> {
    this.#timer = null;
    this.#flushPending = false;
    const batch = this.#batch;
    this.#batch = [];
    if (batch.length === 0) return;
    try {
      await this.#forward(merge(batch));
    } catch (error) {
      logger.error("session.receive flush failed: {error}", { error });
    }
  }
}

/** `ChannelMessage.fromBatch` for channel messages; other envelopes get the same merge. */
function merge(batch: Envelope[]): Envelope {
  if (batch.every((message) => message instanceof ChannelMessage)) {
    return ChannelMessage.fromBatch(batch as ChannelMessage[]);
  }
  const last = batch.at(-1) as Record<string, unknown>;
  const media = batch.flatMap((message) => inboundOf(message).media);
  return { ...last, content: batch.map(contentOf).join("\n"), media };
}
