/**
 * The builtin in-memory steering inbox.
 *
 * @module
 */
import type { Envelope } from "../kernel/envelope.ts";
import type { SteeringInbox } from "../kernel/channel.ts";
import type { TurnState } from "../kernel/turn.ts";

function keyOf(state: TurnState): unknown {
  const thread = state._runtime_thread_id;
  if (thread && isHashable(thread)) return thread;
  const session = state.session_id;
  if (session && isHashable(session)) return session;
  return "default";
}

function isHashable(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/**
 * One FIFO queue per key: `state._runtime_thread_id`, else `state.session_id`, else
 * `"default"`. Process-local.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemorySteeringInbox } from "@bub/core/channels";
 * const inbox = new InMemorySteeringInbox();
 * await inbox.enqueueMessage({ content: "also this" }, { session_id: "s" });
 * assert.ok(inbox.messageCount({ session_id: "s" }) === 1);
 * ```
 */
export class InMemorySteeringInbox implements SteeringInbox {
  #queues = new Map<unknown, Envelope[]>();

  /** Appends `message` to the queue of `state`'s key. */
  enqueueMessage(message: Envelope, state: TurnState): Promise<void> {
    const key = keyOf(state);
    const queue = this.#queues.get(key);
    if (queue) queue.push(message);
    else this.#queues.set(key, [message]);
    return Promise.resolve();
  }

  /** Removes and returns the whole queue of `state`'s key. */
  drainMessages(state: TurnState): Promise<Envelope[]> {
    const key = keyOf(state);
    const queue = this.#queues.get(key) ?? [];
    this.#queues.delete(key);
    return Promise.resolve(queue);
  }

  /** The queue length for `state`'s key (never creates a queue). */
  messageCount(state: TurnState): number {
    return this.#queues.get(keyOf(state))?.length ?? 0;
  }
}
