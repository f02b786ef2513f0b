/**
 * The channel manager's intake: the way from a channel's receive handler to the one FIFO the
 * listen loop reads. Messages of unknown channels, and messages that arrive after shutdown, are
 * ignored; each session's messages pass through their own debounce buffer when the channel asks
 * for one. Also validates the debounce timings of the manager's options.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import type { Channel, MessageHandler } from "../kernel/channel.ts";
import type { Envelope } from "../kernel/envelope.ts";
import { inboundOf } from "../kernel/inbound.ts";
import { type ChannelClock, DebounceBuffer, type DebounceTimings } from "./_debounce.ts";
import { InboundQueue } from "./_inbound_queue.ts";

const logger = getLogger(["bub", "channels"]);

/**
 * The debounce timings of the manager's options (defaults 1, 10 and 60 seconds).
 *
 * @throws {RangeError} for a negative or non-numeric timing
 */
export function debounceTimings(options: Partial<DebounceTimings>): DebounceTimings {
  return {
    debounceSeconds: seconds(options, "debounceSeconds", 1),
    maxWaitSeconds: seconds(options, "maxWaitSeconds", 10),
    activeTimeWindow: seconds(options, "activeTimeWindow", 60),
  };
}

function seconds(
  options: Partial<DebounceTimings>,
  key: keyof DebounceTimings,
  fallback: number,
): number {
  const value = options[key] ?? fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `Invalid ${key}: expected a non-negative number of seconds, got ${String(value)}`,
    );
  }
  return value;
}

/** One session's way into the queue: its debounce buffer, if its channel asked for one. */
interface SessionIntake {
  handle: MessageHandler;
  buffer: DebounceBuffer | null;
}

/** Takes the channels' inbound messages into one FIFO, debounced per session where asked. */
export class Intake {
  #channels: ReadonlyMap<string, Channel>;
  #timings: DebounceTimings;
  #clock: ChannelClock;
  #queue = new InboundQueue<Envelope>();
  #sessions = new Map<string, SessionIntake>();
  #closed = false;

  /** @param channels the channels by name @param timings debounce settings @param clock the time source */
  constructor(
    channels: ReadonlyMap<string, Channel>,
    timings: DebounceTimings,
    clock: ChannelClock,
  ) {
    this.#channels = channels;
    this.#timings = timings;
    this.#clock = clock;
  }

  /** Takes `message` in (through its session's buffer); ignores it once closed. */
  async receive(message: Envelope): Promise<void> {
    const inbound = inboundOf(message);
    const name = inbound.channel;
    const channel = name !== null ? this.#channels.get(name) : undefined;
    if (!channel) {
      logger.warn("Received a message from unknown channel {name}; ignoring it", { name });
      return;
    }
    if (this.#closed) {
      logger.info("Received a message from channel {name} after shutdown; ignoring it", { name });
      return;
    }
    const key = String(inbound.sessionId);
    let session = this.#sessions.get(key);
    if (!session) {
      const enqueue = (item: Envelope): void => this.#queue.put(item);
      const buffer = channel.needsDebounce
        ? new DebounceBuffer(enqueue, this.#timings, this.#clock)
        : null;
      const handle: MessageHandler = buffer ? (item) => buffer.handle(item) : (item) => {
        enqueue(item);
        return Promise.resolve();
      };
      session = { handle, buffer };
      this.#sessions.set(key, session);
    }
    await session.handle(message);
  }

  /** The oldest queued message; waits for one. Rejects with `signal.reason` once it aborts. */
  next(signal: AbortSignal): Promise<Envelope> {
    return this.#queue.get(signal);
  }

  /** Takes messages in again (after {@link close}). */
  open(): void {
    this.#closed = false;
  }

  /** Ignores inbound messages from now on, until {@link open}. */
  close(): void {
    this.#closed = true;
  }

  /** Drops every session's buffered messages and cancels their timers. */
  dropBuffered(): void {
    for (const { buffer } of this.#sessions.values()) buffer?.close();
    this.#sessions.clear();
  }
}
