/**
 * Redelivered messages: a cluster instance that takes over a session runs again the message
 * whose turn a dead owner started and never completed. It marks that message's envelope, so
 * that the turn resumes where the dead owner's fork stopped (see `src/agent/turn_recovery.ts`)
 * instead of answering the message a second time; when the dead owner's turn had run to its
 * end (its fork merged, the message not completed yet), its recorded answer is delivered instead
 * (nothing runs again); when nothing durable was left, the message runs again.
 *
 * @module
 */

/** The redelivered messages, with the recorded answer of a turn that had run to its end. */
const redelivered = new WeakMap<object, string | null>();

/**
 * Marks `message` as the redelivery of an interrupted turn's message; `answer` is that turn's
 * recorded answer when it had run to its end (default null: it had not).
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
export function markRedelivered(message: unknown, answer: string | null = null): void {
  if (typeof message === "object" && message !== null) redelivered.set(message, answer);
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

/**
 * The recorded answer of a redelivered message whose turn had run to its end, or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markRedelivered, redeliveredAnswer } from "./redelivery.ts";
 * const message = { content: "hi" };
 * markRedelivered(message, "hello");
 * assert.equal(redeliveredAnswer(message), "hello");
 * assert.equal(redeliveredAnswer({ content: "hi" }), null);
 * ```
 */
export function redeliveredAnswer(message: unknown): string | null {
  return typeof message === "object" && message !== null ? redelivered.get(message) ?? null : null;
}
