/**
 * Redelivered messages: a cluster instance that takes over a session runs again the message
 * whose turn a dead owner started and never completed. It marks that message's envelope, so
 * that the turn resumes where the dead owner's fork stopped (see `src/agent/turn_recovery.ts`)
 * instead of answering the message a second time; when nothing durable was left, the message
 * runs again.
 *
 * @module
 */

const redelivered = new WeakSet<object>();

/**
 * Marks `message` as the redelivery of an interrupted turn's message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isRedelivered, markRedelivered } from "./redelivery.ts";
 * const message = { content: "hi" };
 * markRedelivered(message);
 * assert.ok(isRedelivered(message));
 * ```
 */
export function markRedelivered(message: unknown): void {
  if (typeof message === "object" && message !== null) redelivered.add(message);
}

/**
 * True for an envelope {@link markRedelivered} marked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isRedelivered } from "./redelivery.ts";
 * assert.equal(isRedelivered({ content: "hi" }), false);
 * ```
 */
export function isRedelivered(message: unknown): boolean {
  return typeof message === "object" && message !== null && redelivered.has(message);
}
