/**
 * Entries serialised once: a stored entry is a frozen copy parsed from its JSONL text, and that
 * text is remembered with it, so a fork's buffered entries reach the file (and the file store's
 * cache) without another clone, freeze, serialisation or parse.
 *
 * @module
 */
import {
  freezeParsed,
  frozenJsonCopy,
  NOT_PLAIN,
  pyDumps,
  pythonSeparators,
} from "../../_internal/json.ts";
import { type TapeEntry, validateEntry, validateTapeName } from "../entry.ts";

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
 * {@link _body} of a stored copy made of plain data (no `toJSON`, nothing JSON drops, no cycle):
 * the native encoder's text with Python's separators, which is the same text.
 */
function _plainBody(entry: TapeEntry): string {
  const { kind, payload, meta, date } = entry;
  const system = lastSystem;
  if (system === null || payload !== system.payload) {
    return pythonSeparators(JSON.stringify({ kind, payload, meta, date })).slice(1, -1);
  }
  // A shared system prompt (see `_shareSystem`): its text is made once, not at every model call.
  system.text ??= pythonSeparators(JSON.stringify(payload));
  return `"kind": ${JSON.stringify(kind)}, "payload": ${system.text}, "meta": ${
    pythonSeparators(JSON.stringify(meta))
  }, "date": ${JSON.stringify(date)}`;
}

// The last system prompt stored: the next identical one shares its (frozen) payload, so a long
// session holds one copy of a prompt written at every model call, not one per call. Its payload's
// JSON text is kept with it once made (a prompt is often tens of KB, and the native encoder takes
// a few ns per character on V8).
let lastSystem: { content: string; payload: Record<string, unknown>; text?: string } | null = null;

function _shareSystem(parsed: TapeEntry): Record<string, unknown> {
  const payload = parsed.payload;
  if (parsed.kind !== "system" || typeof payload.content !== "string") return payload;
  const keys = Object.keys(payload);
  if (keys.length !== 1) return payload;
  if (lastSystem !== null && lastSystem.content === payload.content) return lastSystem.payload;
  lastSystem = { content: payload.content, payload: Object.freeze(payload) };
  return payload;
}

// Recent event payloads with flat data, by event name (a few each): an equal one shares the frozen
// payload. A step after the first starts with the same `loop.step.start {step, prompt: null}` in
// every turn, so a long session keeps one copy of it per step number, not one per turn.
const recentEvents = new Map<string, Record<string, unknown>[]>();
const RECENT_PER_NAME = 4;
const RECENT_NAMES = 64;
const FLAT_KEYS = 8;

/** True when `data` is a plain object of at most {@link FLAT_KEYS} primitive values. */
function _flat(data: unknown): data is Record<string, unknown> {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return false;
  let keys = 0;
  for (const key in data) {
    if (++keys > FLAT_KEYS) return false;
    const value = (data as Record<string, unknown>)[key];
    if (typeof value === "object" ? value !== null : typeof value === "function") return false;
  }
  return true;
}

/** True when flat `a` and `b` have the same keys in the same order and the same values. */
function _sameFlat(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  let count = 0;
  for (const key in b) {
    if (keys[count++] !== key || !Object.is(a[key], b[key])) return false;
  }
  return count === keys.length;
}

function _shareEvent(parsed: TapeEntry, payload: Record<string, unknown>): Record<string, unknown> {
  if (parsed.kind !== "event") return payload;
  const name = payload.name;
  if (typeof name !== "string") return payload;
  let keys = 0;
  for (const key in payload) {
    if (++keys > 2 || key !== (keys === 1 ? "name" : "data")) return payload;
  }
  const data = payload.data;
  if (keys !== 2 || !_flat(data)) return payload;
  let recent = recentEvents.get(name);
  if (recent === undefined) {
    if (recentEvents.size >= RECENT_NAMES) recentEvents.clear();
    recentEvents.set(name, recent = []);
  } else {
    for (let i = 0; i < recent.length; i++) {
      const kept = recent[i]!;
      if (!_sameFlat(kept.data as Record<string, unknown>, data)) continue;
      // Most recently used first: a payload still repeating is not pushed out by others.
      if (i > 0) {
        recent.splice(i, 1);
        recent.unshift(kept);
      }
      return kept;
    }
  }
  recent.unshift(payload);
  if (recent.length > RECENT_PER_NAME) recent.pop();
  return payload;
}

// The last meta stored: an equal flat meta (the `run_id` of every entry of one call) shares it.
let lastMeta: Record<string, unknown> | null = null;
// Every empty meta (most events') is this one.
const EMPTY_META: Record<string, unknown> = Object.freeze({});

function _shareMeta(meta: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(meta);
  if (keys.length === 0) return EMPTY_META;
  if (keys.length > 4) return meta;
  for (const key of keys) {
    const value = meta[key];
    if (typeof value === "object" && value !== null) return meta;
  }
  const last = lastMeta;
  if (
    last !== null && Object.keys(last).length === keys.length &&
    keys.every((key) => Object.hasOwn(last, key) && Object.is(last[key], meta[key]))
  ) {
    return last;
  }
  lastMeta = Object.freeze(meta);
  return meta;
}

/** A stored copy of `entry` with `id` and its JSONL line (see {@link storedCopy}). */
export function storedEntry(
  tape: string,
  entry: unknown,
  id: number,
  keepText = false,
): { copy: TapeEntry; line: string } {
  const known = BODIES.get(entry as TapeEntry);
  let copy: TapeEntry;
  let body: string;
  if (known !== undefined) {
    validateTapeName(tape);
    body = known;
    // A stored copy with this id already (a fork's buffer numbers a new tape's entries as its
    // file does): it is the copy, and its text is kept.
    if ((entry as TapeEntry).id === id) return { copy: entry as TapeEntry, line: _line(id, body) };
    const { kind, payload, meta, date } = entry as TapeEntry;
    copy = Object.freeze({ id, kind, payload, meta, date });
  } else {
    const checked = validateEntry(tape, entry);
    const plain = _plainCopy(id, checked);
    if (plain !== null) {
      copy = plain;
      body = _plainBody(plain);
    } else {
      body = _body(tape, checked);
      copy = _frozenCopy(id, JSON.parse(`{${body}}`) as TapeEntry);
    }
  }
  if (keepText) BODIES.set(copy, body);
  return { copy, line: _line(id, body) };
}

function _line(id: number, body: string): string {
  return `{"id": ${id}, ${body}}\n`;
}

/**
 * A frozen copy of `entry` with `id`, to store on `tape`: parsed from the entry's JSONL text
 * (what reading the line back gives). With `keepText` (a fork's buffer) the text is remembered
 * with the copy, so appending the copy elsewhere (the merge) neither checks, serialises nor
 * parses it again: its text and frozen parts are reused.
 *
 * @throws TypeError when the entry is invalid or cannot be serialised
 */
export function storedCopy(tape: string, entry: unknown, id: number, keepText = false): TapeEntry {
  if (keepText || BODIES.has(entry as TapeEntry)) {
    return storedEntry(tape, entry, id, keepText).copy;
  }
  // No text wanted (a memory store): a copy of plain data, else the native JSON round trip (both
  // give what the Python-format text parses to).
  const checked = validateEntry(tape, entry);
  const plain = _plainCopy(id, checked);
  if (plain !== null) return plain;
  const { kind, payload, meta, date } = checked;
  let parsed: TapeEntry;
  try {
    parsed = JSON.parse(JSON.stringify({ kind, payload, meta, date })) as TapeEntry;
  } catch {
    _body(tape, { id: 0, kind, payload, meta, date }); // Throws the Python encoder's error.
    throw new TypeError(`Cannot append entry to tape ${JSON.stringify(tape)}`);
  }
  return _frozenCopy(id, parsed);
}

/** The stored copy of a checked entry made of plain data (see `frozenJsonCopy`), else null. */
function _plainCopy(id: number, checked: TapeEntry): TapeEntry | null {
  const payload = frozenJsonCopy(checked.payload);
  if (payload === NOT_PLAIN) return null;
  const meta = frozenJsonCopy(checked.meta);
  if (meta === NOT_PLAIN) return null;
  return _frozenCopy(id, {
    id,
    kind: checked.kind,
    payload: payload as Record<string, unknown>,
    meta: meta as Record<string, unknown>,
    date: checked.date,
  });
}

/**
 * The stored copy of a freshly parsed entry: frozen throughout, equal prompts, recent equal event
 * payloads and metas shared.
 */
function _frozenCopy(id: number, parsed: TapeEntry): TapeEntry {
  const payload = _shareEvent(parsed, _shareSystem(parsed));
  if (!Object.isFrozen(payload)) freezeParsed(payload);
  const meta = _shareMeta(parsed.meta);
  if (!Object.isFrozen(meta)) freezeParsed(meta);
  return Object.freeze({ id, kind: parsed.kind, payload, meta, date: parsed.date });
}

/** Makes `store` (a fork's buffer) keep the text of the entries it stores. */
export function keepEntryText(store: object): void {
  KEEP_TEXT.add(store);
}

/** True when `store` keeps the text of its entries. */
export function keepsEntryText(store: object): boolean {
  return KEEP_TEXT.has(store);
}

const KEEP_TEXT = new WeakSet<object>();
