/**
 * Per-session turn bookkeeping of the channel manager: running turn tasks and the FIFO queue of
 * follow-up messages.
 *
 * @module
 */
import type { SteeringInbox, TurnSnapshot } from "../kernel/channel.ts";
import type { Envelope } from "../kernel/envelope.ts";
import type { TurnState } from "../kernel/turn.ts";

/** One scheduled turn: its message, its cancel switch and its promise. */
export class TurnTask {
  /** The session id the task is registered under. */
  readonly sessionId: string;
  /** The message being processed. */
  readonly message: Envelope;
  /** Aborting it cancels the turn. */
  readonly abort: AbortController = new AbortController();
  /** Settles when the turn ends (set right after scheduling). */
  promise: Promise<void> = Promise.resolve();

  /** @param sessionId the session @param message the message */
  constructor(sessionId: string, message: Envelope) {
    this.sessionId = sessionId;
    this.message = message;
  }

  /** The signal handed to the turn. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Cancels the turn with an `AbortError` naming `why`. */
  cancel(why: string): void {
    if (!this.abort.signal.aborted) this.abort.abort(new DOMException(why, "AbortError"));
  }
}

/**
 * A session's running tasks (each counts as active until done), the steering inbox captured at
 * creation, and an unbounded FIFO of pending follow-up messages.
 */
export class SessionTurnController {
  /** The session id. */
  readonly sessionId: string;
  /** The steering inbox of the running scope at creation, or null. */
  readonly inbox: SteeringInbox | null;
  /** Turns not yet finished. */
  readonly tasks: Set<TurnTask> = new Set();
  #pending: Envelope[] = [];

  /** @param sessionId the session @param inbox the steering inbox, or null */
  constructor(sessionId: string, inbox: SteeringInbox | null) {
    this.sessionId = sessionId;
    this.inbox = inbox;
  }

  /** True while a turn of the session runs. */
  get isRunning(): boolean {
    return this.tasks.size > 0;
  }

  /** True with no running turn and no pending message. */
  get isEmpty(): boolean {
    return this.tasks.size === 0 && this.#pending.length === 0;
  }

  /** How many messages wait. */
  get pendingCount(): number {
    return this.#pending.length;
  }

  /** Appends a follow-up message (no capacity limit). */
  addPending(message: Envelope): void {
    this.#pending.push(message);
  }

  /** Removes and returns the oldest pending message, or null. */
  popPending(): Envelope | null {
    return this.#pending.length > 0 ? this.#pending.shift() ?? null : null;
  }

  /** Drops every pending message. */
  clearPending(): void {
    this.#pending = [];
  }

  /** A frozen snapshot for admission hooks; `steeringCount` asks the inbox with `state`. */
  snapshot(state: TurnState): TurnSnapshot {
    const runningCount = this.tasks.size;
    return Object.freeze({
      sessionId: this.sessionId,
      isRunning: runningCount > 0,
      runningCount,
      pendingCount: this.#pending.length,
      steeringCount: this.inbox ? this.inbox.messageCount(state) : 0,
    });
  }
}
