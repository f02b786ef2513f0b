/**
 * Stored copies are made by spreading each object (sized for its keys) and replacing its values by
 * their copies: keys the JSON round trip drops (symbol keys, undefined, functions, symbols) must
 * still be dropped, in the source's key order, at any depth.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { frozenJsonCopy, NOT_PLAIN } from "../../src/_internal/json.ts";

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value));

test("a copy drops symbol keys and the values JSON drops, keeping the key order", () => {
  const values: unknown[] = [
    { [Symbol("hidden")]: 1, a: 1, b: "two" },
    { a: { [Symbol("hidden")]: { x: 1 }, b: [1, { c: undefined, d: 2 }] }, e: () => 1 },
    { first: undefined, second: Symbol("s"), third: 3, fourth: { fifth: null } },
    { list: [{ [Symbol("s")]: "x" }, { n: -0 }], nan: NaN },
  ];
  for (const value of values) {
    const copy = frozenJsonCopy(value);
    assert.notEqual(copy, NOT_PLAIN);
    assert.deepEqual(copy, roundTrip(value));
    assert.deepEqual(Object.keys(copy as object), Object.keys(roundTrip(value)));
    assert.equal(Object.getOwnPropertySymbols(copy as object).length, 0);
    assert.ok(Object.isFrozen(copy));
  }
});

test("a copy reads each getter once and shares no object with its source", () => {
  let reads = 0;
  const nested = { deep: [1, 2] };
  const source = {
    get counted() {
      reads++;
      return { nested };
    },
  };
  const copy = frozenJsonCopy(source) as { counted: { nested: { deep: number[] } } };
  assert.equal(reads, 1);
  assert.deepEqual(copy, { counted: { nested: { deep: [1, 2] } } });
  assert.notEqual(copy.counted.nested, nested);
  assert.notEqual(copy.counted.nested.deep, nested.deep);
});
