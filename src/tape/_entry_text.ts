/**
 * Entries serialised once: a stored entry is a frozen copy parsed from its JSONL text, and that
 * text is remembered with it, so a fork's buffered entries reach the file (and the file store's
 * cache) without another clone, freeze, serialisation or parse.
 *
 * @module
 */
import { deepFreeze, pyDumps } from "./_json.ts";
import { type TapeEntry, validateEntry, validateTapeName } from "./entry.ts";

// A stored copy → its JSONL line without the id: `"kind": …, "payload": …, "meta": …, "date": …`.
const BODIES = new WeakMap<TapeEntry, string>();

function _body(tape: string, entry: TapeEntry): string {
  try {
    const { kind, payload, meta, date } = entry;
    return pyDumps({ kind, payload, meta, date }).slice(1, -1);
  } catch (error) {
    throw new TypeError(
      `Cannot append entry to tape ${JSON.stringify(tape)}: ${(error as Error).message}`,
    );
  }
}

/**
 * A frozen copy of `entry` with `id`, to store on `tape`: parsed from the entry's JSONL text
 * (what reading the line back gives). An entry that is itself a stored copy is not checked,
 * serialised or parsed again: its text and frozen parts are reused.
 *
 * @throws TypeError when the entry is invalid or cannot be serialised
 */
export function storedCopy(tape: string, entry: unknown, id: number): TapeEntry {
  const known = BODIES.get(entry as TapeEntry);
  if (known !== undefined) {
    validateTapeName(tape);
    const { kind, payload, meta, date } = entry as TapeEntry;
    const copy = Object.freeze({ id, kind, payload, meta, date });
    BODIES.set(copy, known);
    return copy;
  }
  const checked = validateEntry(tape, entry);
  const body = _body(tape, checked);
  const parsed = JSON.parse(`{${body}}`) as TapeEntry;
  const copy = deepFreeze({
    id,
    kind: parsed.kind,
    payload: parsed.payload,
    meta: parsed.meta,
    date: parsed.date,
  });
  BODIES.set(copy, body);
  return copy;
}

/** The JSONL line (with its newline) of a stored copy (see {@link storedCopy}). */
export function storedLine(entry: TapeEntry): string {
  const body = BODIES.get(entry) ?? _body("?", entry);
  return `{"id": ${entry.id}, ${body}}\n`;
}
