/**
 * `pyDumps` writes plain data through `JSON.stringify` and rewrites its separators and exponents:
 * its text must equal the Python-style encoder's byte for byte (the tape files' format), for any
 * strings (unicode, lone surrogates, control characters, quotes and backslashes), numbers, nesting.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { pyDumps, pythonSeparators } from "../../src/_internal/json.ts";

/** The Python-style encoder itself: a `fallback` makes `pyDumps` take it (never called here). */
const reference = (value: unknown, ensureAscii = false) =>
  pyDumps(value, {
    ensureAscii,
    fallback: () => {
      throw new Error("no fallback expected");
    },
  });

/** A small seeded generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "a",
  "Z",
  " ",
  ",",
  ":",
  ", ",
  ": ",
  '"',
  "\\",
  '\\"',
  "\\\\",
  '"\\',
  "e-7",
  "1e-7",
  "{",
  "}",
  "[",
  "]",
  "\n",
  "\t",
  "\r",
  "\b",
  "\f",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u0080",
  "é",
  "中文",
  "\u2028",
  "\u2029",
  "😀",
  "\ud800",
  "\udfff",
  "\udc00\ud800",
  "\ufeff",
  "null",
  "true",
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1,
  0.5,
  1.5,
  1e21,
  -1e21,
  1e-7,
  1.5e-7,
  1e-6,
  1e-10,
  2.5e-8,
  1e300,
  5e-324,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_VALUE,
  Number.MAX_VALUE,
  123456789.123,
  NaN,
  Infinity,
  -Infinity,
  1e20,
  1.7976931348623157e308,
  -3e-9,
];

function text(next: () => number): string {
  let out = "";
  const length = Math.floor(next() * 6);
  for (let i = 0; i < length; i++) out += PIECES[Math.floor(next() * PIECES.length)];
  return out;
}

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 4 ? 6 : 9));
  switch (pick) {
    case 0:
    case 1:
      return text(next);
    case 2:
      return NUMBERS[Math.floor(next() * NUMBERS.length)];
    case 3:
      return next() < 0.5;
    case 4:
      return null;
    case 5:
      return next() < 0.5 ? undefined : Math.floor(next() * 2000) - 1000;
    case 6:
    case 7: {
      const out: Record<string, unknown> = {};
      const size = Math.floor(next() * 5);
      for (let i = 0; i < size; i++) {
        out[next() < 0.2 ? String(i) : text(next)] = value(next, depth + 1);
      }
      return out;
    }
    default:
      return Array.from({ length: Math.floor(next() * 5) }, () => value(next, depth + 1));
  }
}

test("pyDumps of plain data equals the Python-style encoder's text", () => {
  const next = random(13);
  for (let i = 0; i < 5000; i++) {
    const v = value(next, 0);
    assert.equal(pyDumps(v), reference(v), `value #${i}`);
    assert.equal(pyDumps(v, { ensureAscii: true }), reference(v, true), `value #${i} (ascii)`);
  }
});

test("pyDumps writes Python's separators and two-digit exponents", () => {
  assert.equal(
    pyDumps({ a: [1, "x, y: z"], b: { c: null } }),
    '{"a": [1, "x, y: z"], "b": {"c": null}}',
  );
  assert.equal(
    pyDumps([1e-7, 1.5e-9, 1e-10, 1e21, -0, 0.1]),
    "[1e-07, 1.5e-09, 1e-10, 1e+21, 0, 0.1]",
  );
  assert.equal(pyDumps({ "e-7": "1e-7", '\\"': '"\\' }), '{"e-7": "1e-7", "\\\\\\"": "\\"\\\\"}');
  assert.equal(pyDumps("é\ud800"), '"é\\ud800"');
  assert.equal(pyDumps(undefined), "null");
  assert.equal(pyDumps([undefined, () => 1, Symbol("s")]), "[null, null, null]");
  assert.equal(pyDumps({ a: undefined, b: () => 1, c: 1 }), '{"c": 1}');
  assert.equal(pythonSeparators('{"a":"\\\\","b":[1e-7]}'), '{"a": "\\\\", "b": [1e-07]}');
});

test("pyDumps passes no key to toJSON and throws the Python encoder's errors", () => {
  const seen: unknown[] = [];
  const value = { a: { toJSON: (...args: unknown[]) => (seen.push(args.length), "x") } };
  assert.equal(pyDumps(value), '{"a": "x"}');
  assert.deepEqual(seen, [0]);
  assert.equal(pyDumps({ d: new Date(0) }), '{"d": "1970-01-01T00:00:00.000Z"}');
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() => pyDumps(cycle), { message: "Cannot serialize a circular structure as JSON" });
  assert.throws(() => pyDumps({ n: 1n }), { message: "Cannot serialize a bigint as JSON, got 1n" });
});
