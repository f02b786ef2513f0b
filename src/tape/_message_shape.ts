/**
 * The shapes of kept context messages: how a fold's message is copied when a context is read out
 * (one object literal for the common shapes instead of a spread) and how a copy is compared with
 * it (its known keys, not a walk of both objects). See `context.ts` and `_message_source.ts`.
 *
 * @module
 */

/** A kept context message. */
export type KeptMessage = Readonly<Record<string, unknown>>;

/**
 * How a kept message is copied (and a copy compared with it, see `_message_source.ts`), one code
 * per kept message, in a list beside the messages:
 * {@link SHAPE_ANY} any object (a shallow copy);
 * {@link SHAPE_TEXT} exactly `role`, `content` (in that order, both defined);
 * {@link SHAPE_RESULT} a built tool message: `role`, `content`, `tool_call_id`, `name`;
 * {@link SHAPE_CALLS} a built `{role, content, tool_calls}` whose calls are copied one by one.
 * A copy of a known shape is one object literal: the same keys, order and values as a spread.
 */
export type MessageShape = 0 | 1 | 2 | 3;
/** See {@link MessageShape}. */
export const SHAPE_ANY = 0;
/** See {@link MessageShape}. */
export const SHAPE_TEXT = 1;
/** See {@link MessageShape}. */
export const SHAPE_RESULT = 2;
/** See {@link MessageShape}. */
export const SHAPE_CALLS = 3;

/** The shape of a stored message payload: {@link SHAPE_TEXT} or {@link SHAPE_ANY}. */
export function payloadShape(payload: KeptMessage): MessageShape {
  let keys = 0;
  for (const key in payload) {
    if (++keys > 2 || !Object.hasOwn(payload, key)) return SHAPE_ANY;
    if (key !== (keys === 1 ? "role" : "content")) return SHAPE_ANY;
  }
  if (keys !== 2 || payload.role === undefined || payload.content === undefined) return SHAPE_ANY;
  // A spread also copies symbol keys: such a payload is copied by a spread.
  return Object.getOwnPropertySymbols(payload).length === 0 ? SHAPE_TEXT : SHAPE_ANY;
}

function _copyCalls(calls: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = new Array(calls.length);
  for (let c = 0; c < calls.length; c++) out[c] = { ...calls[c] };
  return out;
}

/** A fresh copy of kept `message` of `shape` (see {@link MessageShape}). */
export function copyMessage(message: KeptMessage, shape: MessageShape): Record<string, unknown> {
  switch (shape) {
    case SHAPE_TEXT:
      return { role: message.role, content: message.content };
    case SHAPE_RESULT:
      return {
        role: message.role,
        content: message.content,
        tool_call_id: message.tool_call_id,
        name: message.name,
      };
    case SHAPE_CALLS:
      return {
        role: message.role,
        content: message.content,
        tool_calls: _copyCalls(message.tool_calls as Record<string, unknown>[]),
      };
    default:
      return { ...message };
  }
}
