/**
 * What the kernel knows of channels: the channel shape, the router, turn admission and the
 * steering inbox.
 *
 * @module
 */
import type { Envelope } from "./envelope.ts";
import type { StreamEvent } from "./stream.ts";
import type { TurnState } from "./turn.ts";

/**
 * Receives inbound messages from channels.
 *
 * @example
 * ```ts
 * import type { Envelope, MessageHandler } from "@bub/core";
 * const received: Envelope[] = [];
 * const handler: MessageHandler = async (message) => {
 *   received.push(message);
 * };
 * await handler({ channel: "cli", chatId: "local", content: "hi" });
 * ```
 */
export type MessageHandler = (message: Envelope) => Promise<void>;

/**
 * A source and sink of messages. Only `name`, `start` and `stop` are required; the channels
 * module offers a base class with the defaults.
 *
 * @example
 * ```ts
 * import type { ChannelContract, MessageHandler } from "@bub/core/kernel";
 * function tickChannel(handler: MessageHandler): ChannelContract {
 *   return {
 *     name: "tick",
 *     async start(stop) {
 *       if (!stop.signal.aborted) await handler({ channel: "tick", chatId: "t", content: "tick" });
 *     },
 *     async stop() {},
 *   };
 * }
 * const channel = tickChannel(async () => {});
 * await channel.start(new AbortController());
 * ```
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

/**
 * The channel contract under its first name (the channels module's base class is `Channel`).
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { Channel } from "@bub/core/kernel";
 * const quiet: Channel = { name: "quiet", start: async () => {}, stop: async () => {} };
 * const plugin = definePlugin({ name: "quiet-channel", provideChannels: () => [quiet] });
 * ```
 */
export type Channel = ChannelContract;

/**
 * Routes outbound messages and streams to channels; the channel manager implements it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentOf } from "@bub/core";
 * import { type ChannelRouter, KernelFramework } from "@bub/core/kernel";
 * const sent: string[] = [];
 * const router: ChannelRouter = {
 *   dispatchOutput: async (message) => {
 *     sent.push(contentOf(message));
 *     return true;
 *   },
 *   wrapStream: (_message, stream) => stream,
 *   quit: async () => {},
 *   admitChannelMessage: async () => null,
 * };
 * const kernel = new KernelFramework();
 * kernel.bindChannelRouter(router);
 * assert.equal(kernel.channelRouter, router);
 * ```
 */
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

/**
 * What to do with a message that arrives for a session.
 *
 * @example
 * ```ts
 * import type { TurnAdmissionAction } from "@bub/core/kernel";
 * const busy: TurnAdmissionAction = "follow_up"; // queue behind the running turn
 * ```
 */
export type TurnAdmissionAction = "process" | "drop" | "follow_up" | "steer";

/**
 * An admission decision.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { admitDecision, type AdmitDecision } from "@bub/core/kernel";
 * const decision: AdmitDecision = admitDecision("drop", "duplicate update");
 * assert.equal(decision.reason, "duplicate update");
 * ```
 */
export interface AdmitDecision {
  /** The action. */
  readonly action: TurnAdmissionAction;
  /** Why, for logs and for the steering context. */
  readonly reason: string | null;
}

/**
 * Builds an {@link AdmitDecision}.
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import { admitDecision } from "@bub/core/kernel";
 * const steerWhileBusy = definePlugin({
 *   name: "steer",
 *   admitMessage: ({ turn }) => turn.isRunning ? admitDecision("steer") : null,
 * });
 * ```
 */
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

/**
 * What admission hooks see of a session.
 *
 * @example
 * ```ts
 * import type { TurnSnapshot } from "@bub/core/kernel";
 * function busy(turn: TurnSnapshot): boolean {
 *   return turn.isRunning || turn.pendingCount > 0;
 * }
 * busy({ sessionId: "cli:local", isRunning: false, runningCount: 0, pendingCount: 0, steeringCount: 0 });
 * ```
 */
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

/**
 * Mid-turn messages for running turns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Envelope, TurnState } from "@bub/core";
 * import type { SteeringInbox } from "@bub/core/kernel";
 * const queued: Envelope[] = [];
 * const inbox: SteeringInbox = {
 *   enqueueMessage: async (message: Envelope, _state: TurnState) => void queued.push(message),
 *   drainMessages: async () => queued.splice(0),
 *   messageCount: () => queued.length,
 * };
 * await inbox.enqueueMessage({ content: "also check the tests" }, {});
 * assert.equal((await inbox.drainMessages({})).length, 1);
 * ```
 */
export interface SteeringInbox {
  /** Queues a message for the turn identified by `state`. */
  enqueueMessage(message: Envelope, state: TurnState): Promise<void>;
  /** Removes and returns the queued messages for `state`. */
  drainMessages(state: TurnState): Promise<Envelope[]>;
  /** How many messages wait for `state`. */
  messageCount(state: TurnState): number;
}
