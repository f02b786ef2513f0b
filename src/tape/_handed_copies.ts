/**
 * Context copies vouched for as untouched: the builtin context (`incrementalMessages`, no
 * selector of a user's in between) notes which kept messages an array of copies it hands out
 * copies ({@link recordCopies}); a caller that owned such an array from the start and
 * let no other code see its copies (the model runner, when no agent hook and no outside client can
 * reach the request) vouches for them in the array it passes on ({@link vouchCopies}), and the
 * request body takes the vouched run as it is ({@link vouchedRun}) instead of comparing every copy
 * with its source (`matchedCopies`: at a thousand turns about 4000 copies, each read from memory
 * the engine has long evicted from its caches: ~0.7 ms per call on Bun).
 *
 * A vouch holds for one synchronous call: the voucher clears it ({@link clearVouch}) as soon as
 * the call it was made for returns, so it is never seen by code that could have changed a copy.
 *
 * @module
 */
import type { KeptRun } from "./_message_source.ts";
import type { KeptMessage, ShapeList } from "./_message_shape.ts";

/** What an array of copies holds: copies of `kept[0, count)` from its start. */
interface Handed {
  kept: readonly KeptMessage[];
  shapes: ShapeList;
  count: number;
}

// Weak: the arrays are the callers', and a long session's copies must not outlive their call.
const handed = new WeakMap<readonly unknown[], Handed>();

/** Notes that `copies` starts with fresh copies of `kept[0, count)` (each of its shape). */
export function recordCopies(
  copies: readonly unknown[],
  kept: readonly KeptMessage[],
  shapes: ShapeList,
  count: number,
): void {
  if (count > 0) handed.set(copies, { kept, shapes, count });
}

/** A vouched run: `count` untouched copies of the run's kept messages from `start` on. */
export interface VouchedRun extends KeptRun {
  /** How many messages from `start` on are untouched copies of `kept` (in order). */
  count: number;
}

// Model clients whose `stream` builds a request body before it returns and changes no message,
// or returns without reading the messages: they may be handed vouched copies.
const keeping = new WeakSet<object>();

/** Notes that `client`'s `stream` changes no message and builds a body before it returns. */
export function markKeepsMessages(client: object): void {
  keeping.add(client);
}

/** True for a client noted by {@link markKeepsMessages}. */
export function keepsMessages(client: object): boolean {
  return keeping.has(client);
}

let vouched: { messages: readonly unknown[]; run: VouchedRun } | null = null;

/**
 * Vouches that `messages[start, start + copies' count)` are the copies of `copies` (an array
 * noted by {@link recordCopies}), untouched since they were made: call only when no code but Bub's own
 * could have reached those copies, right before the one synchronous call that builds the body of
 * `messages`, and {@link clearVouch} right after it. False (nothing vouched) for an array
 * not noted, or copies not where they are said to be.
 */
export function vouchCopies(
  messages: readonly unknown[],
  start: number,
  copies: readonly unknown[],
): boolean {
  const entry = handed.get(copies);
  if (entry === undefined) return false;
  const count = Math.min(entry.count, copies.length, messages.length - start);
  if (count <= 0) return false;
  // The very copies must sit where the voucher says (two arrays of references: microseconds).
  for (let j = 0; j < count; j++) {
    if (messages[start + j] !== copies[j]) return false;
  }
  vouched = { messages, run: { start, kept: entry.kept, shapes: entry.shapes, count } };
  return true;
}

/** Ends the vouch of {@link vouchCopies}. */
export function clearVouch(): void {
  vouched = null;
}

/** The run vouched for in `messages` (the very array vouched for), or null. */
export function vouchedRun(messages: readonly unknown[]): VouchedRun | null {
  return vouched !== null && vouched.messages === messages ? vouched.run : null;
}
