/**
 * What the kernel knows of channels: the channel shape, the router, turn admission and the
 * steering inbox.
 *
 * @module
 */
import type { Envelope } from "./envelope.ts";
import type { StreamEvent } from "./stream.ts";
import type { TurnState } from "./turn.ts";

/** Receives inbound messages from channels. */
export type MessageHandler = (message: Envelope) => Promise<void>;

/**
 * A source and sink of messages. Only `name`, `start` and `stop` are required; the channels
 * module offers a base class with the defaults.
 */
export interface ChannelContract {
  /** The routing and dedupe key. */
  readonly name: string;
  /**
   * Starts listening and returns promptly. The channel may abort `stop` to ask the manager to
   * shut down (the CLI does on quit).
   */
  start(stop: AbortController): Promise<void>;
  /** Stops listening. */
  stop(): Promise<void>;
  /** True when inbound bursts should be merged. */
  readonly needsDebounce?: boolean;
  /** False when the channel cannot run (e.g. no credentials). */
  readonly enabled?: boolean;
  /** Sends an outbound message. */
  send?(message: Envelope): Promise<void>;
  /** Wraps a model stream to render it live; must re-yield every event. */
  streamEvents?(message: Envelope, stream: AsyncIterable<StreamEvent>): AsyncIterable<StreamEvent>;
  /** Channel-level admission policy. */
  admitMessage?(
    args: { sessionId: string; message: Envelope; turn: TurnSnapshot },
  ): Promise<AdmitDecision | null>;
}

/** The channel contract under its first name (the channels module's base class is `Channel`). */
export type Channel = ChannelContract;

/** Routes outbound messages and streams to channels; the channel manager implements it. */
export interface ChannelRouter {
  /** Sends `message` to its target channel; false when there is none. */
  dispatchOutput(message: Envelope): Promise<boolean>;
  /** The target channel's stream wrapper, or the stream unchanged. */
  wrapStream(message: Envelope, stream: AsyncIterable<StreamEvent>): AsyncIterable<StreamEvent>;
  /** Cancels a session's tasks and pending messages. */
  quit(sessionId: string): Promise<void>;
  /** Asks the message's channel for an admission decision. */
  admitChannelMessage(
    args: { sessionId: string; message: Envelope; turn: TurnSnapshot },
  ): Promise<AdmitDecision | null>;
}

/** What to do with a message that arrives for a session. */
export type TurnAdmissionAction = "process" | "drop" | "follow_up" | "steer";

/** An admission decision. */
export interface AdmitDecision {
  /** The action. */
  readonly action: TurnAdmissionAction;
  /** Why, for logs and for the steering context. */
  readonly reason: string | null;
}

/** Builds an {@link AdmitDecision}. */
export function admitDecision(
  action: TurnAdmissionAction,
  reason: string | null = null,
): AdmitDecision {
  return Object.freeze({ action, reason });
}

/** True for an object shaped like {@link AdmitDecision}. */
export function isAdmitDecision(value: unknown): value is AdmitDecision {
  return typeof value === "object" && value !== null &&
    typeof (value as { action?: unknown }).action === "string";
}

/** What admission hooks see of a session. */
export interface TurnSnapshot {
  /** The session id. */
  readonly sessionId: string;
  /** True when a turn of the session runs. */
  readonly isRunning: boolean;
  /** Running turns of the session. */
  readonly runningCount: number;
  /** Queued follow-up messages. */
  readonly pendingCount: number;
  /** Messages waiting in the steering inbox. */
  readonly steeringCount: number;
}

/** Mid-turn messages for running turns. */
export interface SteeringInbox {
  /** Queues a message for the turn identified by `state`. */
  enqueueMessage(message: Envelope, state: TurnState): Promise<void>;
  /** Removes and returns the queued messages for `state`. */
  drainMessages(state: TurnState): Promise<Envelope[]>;
  /** How many messages wait for `state`. */
  messageCount(state: TurnState): number;
}
