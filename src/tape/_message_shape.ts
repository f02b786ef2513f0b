/**
 * The shapes of kept context messages: how a fold's message is copied when a context is read out
 * (one object literal for the common shapes instead of a spread) and how a copy is compared with
 * it (its known keys, not a walk of both objects). See `context.ts` and `message_source.ts`.
 *
 * @module
 */

/** A kept context message. */
export type KeptMessage = Readonly<Record<string, unknown>>;

/**
 * How a kept message is copied (and a copy compared with it, see `message_source.ts`), one code
 * per kept message, in a list beside the messages:
 * {@link SHAPE_ANY} any object (a shallow copy);
 * {@link SHAPE_TEXT} exactly `role`, `content` (in that order, both defined);
 * {@link SHAPE_RESULT} a built tool message: `role`, `content`, `tool_call_id`, `name`;
 * {@link SHAPE_CALLS} a built `{role, content, tool_calls}` whose calls are copied one by one;
 * {@link SHAPE_PLAIN_CALLS} the same with every call exactly `id`, `type`, `function` (in that
 * order, all defined; see {@link foldedCall}).
 * A copy of a known shape is one object literal: the same keys, order and values as a spread.
 */
export type MessageShape = 0 | 1 | 2 | 3 | 4;
/** See {@link MessageShape}. */
export const SHAPE_ANY = 0;
/** See {@link MessageShape}. */
export const SHAPE_TEXT = 1;
/** See {@link MessageShape}. */
export const SHAPE_RESULT = 2;
/** See {@link MessageShape}. */
export const SHAPE_CALLS = 3;
/** See {@link MessageShape}. */
export const SHAPE_PLAIN_CALLS = 4;

const CALL_KEYS = ["id", "type", "function"] as const;

/** True when `call` holds exactly `id`, `type`, `function` (in that order, all defined). */
function _plainCall(call: Readonly<Record<string, unknown>>): boolean {
  let keys = 0;
  for (const key in call) {
    if (keys > 2 || key !== CALL_KEYS[keys] || !Object.hasOwn(call, key)) return false;
    if (call[key] === undefined) return false;
    keys++;
  }
  return keys === 3 && Object.getOwnPropertySymbols(call).length === 0;
}

/**
 * `calls` itself when it is frozen and every call in it is a frozen plain `{id, type, function}`
 * (a stored payload's calls): a fold keeps such calls as they are, since they never change, and
 * needs no copies of them (a long session keeps every tool-call message). Else null.
 */
export function frozenPlainCalls(calls: readonly unknown[]): readonly KeptMessage[] | null {
  if (!Object.isFrozen(calls)) return null;
  for (let c = 0; c < calls.length; c++) {
    const call = calls[c];
    if (typeof call !== "object" || call === null || Array.isArray(call)) return null;
    if (!Object.isFrozen(call) || !_plainCall(call as KeptMessage)) return null;
  }
  return calls as readonly KeptMessage[];
}

/**
 * A fold's copy of a tool call (a pending call, and the call its built message keeps): an object
 * literal for a plain `{id, type, function}` call (one shape for all of them: cheap to copy and to
 * compare, also for engines slow with the frozen objects a payload holds), else a spread. Returns
 * the copy and whether it is plain.
 */
export function foldedCall(
  call: Readonly<Record<string, unknown>>,
): [Record<string, unknown>, boolean] {
  if (_plainCall(call)) return [{ id: call.id, type: call.type, function: call.function }, true];
  return [{ ...call }, false];
}

// The arrays of a list with no message yet (never written: the first push replaces them).
const NO_BYTES = new Uint8Array(0);
const NO_STARTS = new Uint32Array(0);

/**
 * The shapes of a kept list of messages, one byte each (a long session keeps thousands), and the
 * values of its known-shape messages side by side in one flat array (role, content, then the
 * shape's other values; a plain tool-call message: its call count, then each call's id, type and
 * function): a long session's copies are made from these few contiguous arrays
 * instead of reading thousands of objects spread over the heap (Bun never moves an object, so a
 * session's messages lie scattered among the garbage of the turns that made them). Grows with
 * its list and stays the same object, so a reader holding it sees the list's later messages.
 * A kept message never changes, so its values are read once, when it is added.
 */
export class ShapeList {
  // Allocated at the first message (most lists of a turn are replaced or stay short-lived, and a
  // typed array costs several times a plain object on Deno, whose small typed arrays live off the
  // heap).
  #bytes: Uint8Array = NO_BYTES;
  #length = 0;
  /** Where each message's values start in {@link fields}. */
  #starts: Uint32Array = NO_STARTS;
  /** The values of the known-shape messages, in order (see {@link ShapeList}). */
  readonly fields: unknown[] = [];

  /** The number of shapes. */
  get length(): number {
    return this.#length;
  }

  /** Appends `message` of `shape`. */
  push(shape: MessageShape, message: KeptMessage): void {
    if (this.#length === this.#bytes.length) this.#grow(Math.max(16, this.#length * 2));
    this.#bytes[this.#length] = shape;
    this.#starts[this.#length++] = this.fields.length;
    const fields = this.fields;
    switch (shape) {
      case SHAPE_TEXT:
        fields.push(message.role, message.content);
        break;
      case SHAPE_RESULT:
        fields.push(message.role, message.content, message.tool_call_id, message.name);
        break;
      case SHAPE_PLAIN_CALLS: {
        const calls = message.tool_calls as readonly Record<string, unknown>[];
        fields.push(message.role, message.content, calls.length);
        for (const call of calls) fields.push(call.id, call.type, call.function);
        break;
      }
    }
  }

  /** Moves the arrays to new ones of `capacity` (at least the current length). */
  #grow(capacity: number): void {
    const bytes = new Uint8Array(capacity);
    bytes.set(this.#bytes);
    this.#bytes = bytes;
    const starts = new Uint32Array(capacity);
    starts.set(this.#starts);
    this.#starts = starts;
  }

  /** The shape at `index` ({@link SHAPE_ANY} past the end). */
  get(index: number): MessageShape {
    return index < this.#length ? this.#bytes[index] as MessageShape : SHAPE_ANY;
  }

  /** A fresh copy of the message at `index`, which is `message` (as {@link copyMessage}). */
  copy(index: number, message: KeptMessage): Record<string, unknown> {
    const fields = this.fields;
    const at = this.#starts[index]!;
    switch (this.get(index)) {
      case SHAPE_TEXT:
        return { role: fields[at], content: fields[at + 1] };
      case SHAPE_RESULT:
        return {
          role: fields[at],
          content: fields[at + 1],
          tool_call_id: fields[at + 2],
          name: fields[at + 3],
        };
      case SHAPE_PLAIN_CALLS: {
        const count = fields[at + 2] as number;
        const calls: Record<string, unknown>[] = new Array(count);
        for (let c = 0, k = at + 3; c < count; c++, k += 3) {
          calls[c] = { id: fields[k], type: fields[k + 1], function: fields[k + 2] };
        }
        return { role: fields[at], content: fields[at + 1], tool_calls: calls };
      }
      default:
        return copyMessage(message, this.get(index));
    }
  }

  /**
   * Fresh copies of all messages of the list (`messages`, in order) into `out` from `offset` on:
   * {@link copy} for each, in one loop over the list's arrays.
   */
  copyAll(messages: readonly KeptMessage[], out: Record<string, unknown>[], offset: number): void {
    const fields = this.fields;
    const bytes = this.#bytes;
    const starts = this.#starts;
    const length = Math.min(this.#length, messages.length);
    for (let i = 0; i < length; i++) {
      const at = starts[i]!;
      switch (bytes[i]) {
        case SHAPE_TEXT:
          out[offset + i] = { role: fields[at], content: fields[at + 1] };
          break;
        case SHAPE_RESULT:
          out[offset + i] = {
            role: fields[at],
            content: fields[at + 1],
            tool_call_id: fields[at + 2],
            name: fields[at + 3],
          };
          break;
        case SHAPE_PLAIN_CALLS: {
          const count = fields[at + 2] as number;
          const calls: Record<string, unknown>[] = new Array(count);
          for (let c = 0, k = at + 3; c < count; c++, k += 3) {
            calls[c] = { id: fields[k], type: fields[k + 1], function: fields[k + 2] };
          }
          out[offset + i] = { role: fields[at], content: fields[at + 1], tool_calls: calls };
          break;
        }
        default:
          out[offset + i] = copyMessage(messages[i]!, bytes[i] as MessageShape);
      }
    }
    for (let i = length; i < messages.length; i++) {
      out[offset + i] = copyMessage(messages[i]!, SHAPE_ANY);
    }
  }

  /** The shapes and values of this list, then those of `more`. */
  concat(more: ShapeList): ShapeList {
    const out = new ShapeList();
    out.#append(this);
    out.#append(more);
    return out;
  }

  #append(list: ShapeList): void {
    const offset = this.fields.length;
    for (const value of list.fields) this.fields.push(value);
    const length = this.#length + list.#length;
    if (length > this.#bytes.length) {
      let capacity = Math.max(16, this.#bytes.length);
      while (capacity < length) capacity *= 2;
      this.#grow(capacity);
    }
    for (let i = 0; i < list.#length; i++) {
      this.#bytes[this.#length + i] = list.#bytes[i]!;
      this.#starts[this.#length + i] = list.#starts[i]! + offset;
    }
    this.#length = length;
  }
}

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

function _copyPlainCalls(calls: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = new Array(calls.length);
  for (let c = 0; c < calls.length; c++) {
    const call = calls[c]!;
    out[c] = { id: call.id, type: call.type, function: call.function };
  }
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
    case SHAPE_PLAIN_CALLS:
      return {
        role: message.role,
        content: message.content,
        tool_calls: _copyPlainCalls(message.tool_calls as Record<string, unknown>[]),
      };
    default:
      return { ...message };
  }
}
