/**
 * Python-compatible JSON text (`json.dumps` with its default `", "` / `": "` separators), used
 * for the JSONL wire format, archives, text queries and context rendering.
 *
 * @module
 */

/** Options of {@link pyDumps}. */
export interface PyDumpsOptions {
  /** Escape every non-ASCII character as `\uXXXX` (Python `ensure_ascii=True`). */
  ensureAscii?: boolean;
  /** Sort object keys (Python `sort_keys=True`). */
  sortKeys?: boolean;
  /** Replaces a value JSON cannot represent (Python `default=`); without it such values throw. */
  fallback?: (value: unknown) => unknown;
}

const NON_ASCII = /[\u0080-\uffff]/g;

function _escapeNonAscii(text: string): string {
  return text.replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function _number(value: number): string {
  if (!Number.isFinite(value)) return "null";
  const text = String(value);
  // Python writes two-digit exponents: 1e-07 rather than 1e-7.
  return text.replace(/e([+-])(\d)$/, "e$10$2");
}

function _encode(value: unknown, options: PyDumpsOptions, seen: Set<object>): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return _number(value);
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      if (options.fallback && typeof value !== "undefined") {
        return _encode(options.fallback(value), options, seen);
      }
      return undefined;
    case "bigint":
      if (options.fallback) return _encode(options.fallback(value), options, seen);
      throw new TypeError(`Cannot serialize a bigint as JSON, got ${value}n`);
  }
  const object = value as Record<string, unknown> & { toJSON?: () => unknown };
  if (typeof object.toJSON === "function") return _encode(object.toJSON(), options, seen);
  // Boxed primitives serialise as their value (as `JSON.stringify` does).
  if (object instanceof Number || object instanceof String || object instanceof Boolean) {
    return _encode(object.valueOf(), options, seen);
  }
  if (seen.has(object)) {
    if (options.fallback) return _encode(options.fallback(value), options, seen);
    throw new TypeError("Cannot serialize a circular structure as JSON");
  }
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      const parts = object.map((item) => _encode(item, options, seen) ?? "null");
      return `[${parts.join(", ")}]`;
    }
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null && options.fallback) {
      return _encode(options.fallback(value), options, seen);
    }
    const keys = Object.keys(object);
    if (options.sortKeys) keys.sort();
    const parts: string[] = [];
    for (const key of keys) {
      const encoded = _encode(object[key], options, seen);
      if (encoded !== undefined) parts.push(`${JSON.stringify(key)}: ${encoded}`);
    }
    return `{${parts.join(", ")}}`;
  } finally {
    seen.delete(object);
  }
}

/**
 * Serializes `value` the way Python's `json.dumps` does with default separators.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pyDumps } from "./json.ts";
 * assert.ok(pyDumps({ a: [1, "é"] }) === '{"a": [1, "é"]}');
 * assert.ok(pyDumps("é", { ensureAscii: true }) === '"\\u00e9"');
 * ```
 */
export function pyDumps(value: unknown, options: PyDumpsOptions = {}): string {
  let text: string | undefined;
  if (options.fallback === undefined && !options.sortKeys) text = _native(value);
  text ??= _encode(value, options, new Set()) ?? "null";
  return options.ensureAscii ? _escapeNonAscii(text) : text;
}

/**
 * `JSON.stringify`'s text with Python's separators and exponents, for a value without a `toJSON`
 * method anywhere (the one thing the two encoders treat differently: `JSON.stringify` passes the
 * key to it); undefined when the value has one or `JSON.stringify` throws (the Python encoder then
 * runs, for its own error).
 */
function _native(value: unknown): string | undefined {
  if (!_withoutToJson(value, 0)) return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined;
  }
  return text === undefined ? "null" : pythonSeparators(text);
}

/** True when nothing in `value` (to depth 64) has a `toJSON` method: false to be safe beyond. */
function _withoutToJson(value: unknown, depth: number): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (depth > MAX_DEPTH) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (typeof item === "object" && item !== null && !_withoutToJson(item, depth + 1)) {
        return false;
      }
    }
    return true;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === "object" && item !== null && !_withoutToJson(item, depth + 1)) {
      return false;
    }
  }
  return true;
}

/**
 * Compact JSON text (`JSON.stringify`'s) as the Python encoder writes it: `", "` and `": "`
 * between items, and two-digit negative exponents (`1e-07`). Strings are skipped whole.
 */
export function pythonSeparators(text: string): string {
  let out = "";
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) { // '"': skip to the closing quote (one not escaped by an odd run of '\').
      let end = text.indexOf('"', i + 1);
      while (text.charCodeAt(end - 1) === 92) {
        let k = end - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((end - 1 - k) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      i = end + 1;
      continue;
    }
    if (c === 44 || c === 58) { // ',' or ':'
      out += text.slice(last, i + 1) + " ";
      last = i + 1;
    } else if (c === 101 && text.charCodeAt(i + 1) === 45) { // "e-": JavaScript writes 1e-7
      const d = text.charCodeAt(i + 3);
      if (!(d >= 48 && d <= 57)) {
        out += text.slice(last, i + 2) + "0";
        last = i + 2;
      }
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** `pyDumps` with non-ASCII raw, or the value's string form when it cannot be serialized. */
export function dumpsOrString(value: unknown): string {
  try {
    return pyDumps(value);
  } catch {
    return String(value);
  }
}

/** `JSON.stringify(value)`, or the value's string form when that gives nothing or throws. */
export function jsonOrString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A deep copy through JSON (what a persistent store would give back). */
export function jsonClone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Freezes `value` and everything reachable from it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Freezes a value fresh from `JSON.parse` and everything in it: no cycles, nothing frozen yet, so
 * no checks (the stored copies of tape entries).
 */
export function freezeParsed(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) freezeParsed(value[i]);
  } else {
    for (const key in value) freezeParsed((value as Record<string, unknown>)[key]);
  }
}

/** What {@link frozenJsonCopy} returns for a value it leaves to the native JSON round trip. */
export const NOT_PLAIN: unique symbol = Symbol("not plain JSON");

const MAX_DEPTH = 64;

function _copy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // As the round trip: -0 becomes 0, non-finite numbers null.
      return value === 0 ? 0 : Number.isFinite(value) ? value : null;
    case "object":
      break;
    default:
      return NOT_PLAIN; // undefined, functions and symbols: their place decides (see below).
  }
  if (value === null) return null;
  if (depth > MAX_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") return NOT_PLAIN;
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const type = typeof item;
      if (type === "undefined" || type === "function" || type === "symbol") out[i] = null;
      else {
        const copy = _copy(item, depth + 1);
        if (copy === NOT_PLAIN) return NOT_PLAIN;
        out[i] = copy;
      }
    }
    return Object.freeze(out);
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const object = value as Record<string, unknown>;
  if (typeof object.toJSON === "function") return NOT_PLAIN;
  // A spread copy is sized for its keys (an object grown from `{}` is not: 56 bytes for up to four
  // keys on V8, 64 for up to six on JavaScriptCore), and a long session keeps every stored one.
  // Its values are then replaced in place by their copies (which keeps its size).
  const out: Record<string, unknown> = { ...object };
  for (const key of Object.keys(out)) {
    const item = out[key];
    const type = typeof item;
    if (type === "undefined" || type === "function" || type === "symbol") {
      return _objectWithout(object, depth);
    }
    if (key === "__proto__") return NOT_PLAIN;
    if (type === "string" || type === "boolean" || item === null) continue;
    const copy = _copy(item, depth + 1);
    if (copy === NOT_PLAIN) return NOT_PLAIN;
    out[key] = copy;
  }
  // A spread also copies symbol keys, which the round trip drops.
  if (Object.getOwnPropertySymbols(out).length > 0) return _objectWithout(object, depth);
  return Object.freeze(out);
}

/** {@link _copy} of a plain object with keys the round trip drops (undefined, function, symbol). */
function _objectWithout(object: Record<string, unknown>, depth: number): unknown {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    const item = object[key];
    const type = typeof item;
    if (type === "undefined" || type === "function" || type === "symbol") continue;
    if (key === "__proto__") return NOT_PLAIN;
    const copy = _copy(item, depth + 1);
    if (copy === NOT_PLAIN) return NOT_PLAIN;
    out[key] = copy;
  }
  return Object.freeze({ ...out });
}

/**
 * A frozen deep copy of `value` equal to `JSON.parse(JSON.stringify(value))`, made without the
 * text, or {@link NOT_PLAIN} when `value` holds anything but plain objects, arrays, strings,
 * numbers, booleans and null (a `toJSON`, a class instance, a bigint, a boxed primitive, a
 * `__proto__` key, nesting deeper than 64): such values take the JSON round trip.
 */
export function frozenJsonCopy(value: unknown): unknown {
  return _copy(value, 0);
}
