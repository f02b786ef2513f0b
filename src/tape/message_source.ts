/**
 * The kept messages behind context copies: `copyMessages` hands out fresh copies of the messages a
 * context keeps (callers may change them) and remembers the kept lists it copied most recently. A
 * kept message never changes (a tape payload is frozen; a message a fold built is never touched
 * again) and a fold's list of kept messages only grows, so a consumer may cache what it derives
 * from a kept message by its position in that list (a request body's JSON) and reuse it for any
 * message that still equals it ({@link sameAsSource}), whoever made that message.
 *
 * Only the lists are remembered (the folds hold them anyway), not the copies: keeping every copy
 * reachable would move each call's copies to the old generation.
 *
 * @module
 */
import {
  type KeptMessage,
  type MessageShape,
  SHAPE_ANY,
  SHAPE_CALLS,
  SHAPE_PLAIN_CALLS,
  SHAPE_RESULT,
  SHAPE_TEXT,
  type ShapeList,
} from "./_message_shape.ts";

export type { KeptMessage };

/** Lists remembered: several turns may read their contexts before building their requests. */
const RECENT_LISTS = 8;
/** A kept list and its shapes (a fold's `messages` and `shapes`, growing together). */
interface Recent {
  kept: readonly KeptMessage[];
  shapes: ShapeList;
}
const recent: Recent[] = [];

/**
 * Records that a context handed out copies of `kept` (a fold's growing list, each message of
 * the {@link MessageShape} at its position in `shapes`), from its start.
 */
export function recordKept(kept: readonly KeptMessage[], shapes: ShapeList): void {
  if (kept.length === 0 || recent[0]?.kept === kept) return;
  const at = recent.findIndex((entry) => entry.kept === kept);
  if (at > 0) recent.splice(at, 1);
  recent.unshift({ kept, shapes });
  if (recent.length > RECENT_LISTS) recent.pop();
}

/** What an array of context copies starts with: fresh copies of `kept[0, count)`. */
export interface KeptCopies {
  kept: readonly KeptMessage[];
  shapes: ShapeList;
  count: number;
}

// Weak: the arrays are their readers', and a call's copies must not outlive it.
const handedOut = new WeakMap<readonly unknown[], KeptCopies>();

/** Notes that `copies` (an array a context hands out) starts with fresh copies of a kept run. */
export function noteCopies(copies: readonly unknown[], run: KeptCopies): void {
  if (run.count > 0) handedOut.set(copies, run);
}

/**
 * The kept run an array of copies starts with, as the context handed it out (whoever has had
 * the array since may have changed a copy), or null for an array no context handed out.
 */
export function keptCopiesOf(copies: readonly unknown[]): KeptCopies | null {
  return handedOut.get(copies) ?? null;
}

/** Where a context's copies sit in a list of messages. */
export interface KeptRun {
  /** Index in the list of the copy of `kept[0]`. */
  start: number;
  /** The kept messages (cache by position; check each message with {@link sameAsSource}). */
  kept: readonly KeptMessage[];
  /** Each kept message's shape, by position. */
  shapes: ShapeList;
}

/** How far into a request its context may start (after system and inserted messages). */
const START_SCAN = 8;

/**
 * The recently copied list whose first message `messages` holds (in its first few places) and
 * whose last copied message follows at the same offset, or null.
 */
export function findKept(messages: readonly KeptMessage[]): KeptRun | null {
  const scan = Math.min(messages.length, START_SCAN);
  for (const { kept, shapes } of recent) {
    for (let start = 0; start < scan; start++) {
      if (!sameAsSource(messages[start]!, kept[0]!, shapes.get(0))) continue;
      // The list may have grown since it was copied: any of its later messages may end the run.
      const last = Math.min(kept.length, messages.length - start) - 1;
      if (last === 0 || sameAsSource(messages[start + last]!, kept[last]!, shapes.get(last))) {
        return { start, kept, shapes };
      }
    }
  }
  return null;
}

/** The enumerable keys of `value` (a copy: own keys, as a spread made them). */
function _keyCount(value: KeptMessage): number {
  let keys = 0;
  for (const _ in value) keys++;
  return keys;
}

/**
 * True when `copy` still holds exactly the own enumerable keys and values of `source` (in any
 * order); `tool_calls` (copied call by call) is compared call by call. Values are compared by
 * identity: what a copy shares with its source is frozen or never changed. `shape` is the
 * source's {@link MessageShape}: a known shape compares its keys without walking the source's.
 */
export function sameAsSource(
  copy: KeptMessage,
  source: KeptMessage,
  shape: MessageShape = SHAPE_ANY,
): boolean {
  switch (shape) {
    case SHAPE_TEXT:
      return copy.role === source.role && copy.content === source.content &&
        _keyCount(copy) === 2;
    case SHAPE_RESULT:
      return copy.role === source.role && copy.content === source.content &&
        copy.tool_call_id === source.tool_call_id && copy.name === source.name &&
        _keyCount(copy) === 4;
    case SHAPE_CALLS:
      return copy.role === source.role && copy.content === source.content &&
        _sameCalls(copy.tool_calls, source.tool_calls) && _keyCount(copy) === 3;
    case SHAPE_PLAIN_CALLS:
      return copy.role === source.role && copy.content === source.content &&
        _samePlainCalls(copy.tool_calls, source.tool_calls) && _keyCount(copy) === 3;
    default:
      return _sameAny(copy, source);
  }
}

/**
 * How many messages of `messages` from `start` on are unchanged copies of the kept messages of
 * `run` (in order, at most `limit`): {@link sameAsSource} for each.
 */
export function matchedCopies(
  run: KeptRun,
  messages: readonly KeptMessage[],
  start: number,
  limit: number,
): number {
  const { kept, shapes } = run;
  let j = 0;
  while (j < limit && sameAsSource(messages[start + j]!, kept[j]!, shapes.get(j))) j++;
  return j;
}

function _sameCalls(value: unknown, original: unknown): boolean {
  if (value === original) return true;
  if (!Array.isArray(value) || !Array.isArray(original)) return false;
  if (value.length !== original.length) return false;
  for (let c = 0; c < value.length; c++) {
    if (!_sameCall(value[c], original[c])) return false;
  }
  return true;
}

/** `_sameCalls` for a source whose calls are all plain (see `foldedCall`). */
function _samePlainCalls(value: unknown, original: unknown): boolean {
  if (value === original) return true;
  if (!Array.isArray(value)) return false;
  const calls = original as readonly KeptMessage[];
  if (value.length !== calls.length) return false;
  for (let c = 0; c < value.length; c++) {
    const call = value[c];
    const from = calls[c]!;
    if (typeof call !== "object" || call === null) return false;
    if (call.id !== from.id || call.type !== from.type || call.function !== from.function) {
      return false;
    }
    if (_keyCount(call) !== 3) return false;
  }
  return true;
}

function _sameAny(copy: KeptMessage, source: KeptMessage): boolean {
  let keys = 0;
  for (const key in copy) {
    keys++;
    const value = copy[key];
    const original = source[key];
    if (value === original) {
      if (value !== undefined || Object.hasOwn(source, key)) continue;
      return false;
    }
    if (key !== "tool_calls" || !_sameCalls(value, original)) return false;
  }
  for (const _ in source) keys--;
  return keys === 0;
}

function _sameCall(call: unknown, from: unknown): boolean {
  if (call === from) return true;
  if (typeof call !== "object" || call === null || typeof from !== "object" || from === null) {
    return false;
  }
  let keys = 0;
  for (const key in call) {
    keys++;
    const value = (call as Record<string, unknown>)[key];
    if (value !== (from as Record<string, unknown>)[key] || !Object.hasOwn(from, key)) return false;
  }
  for (const _ in from) keys--;
  return keys === 0;
}
