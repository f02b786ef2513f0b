/**
 * A `ShapeList` allocates its arrays at its first message: an empty list (a fold that kept
 * nothing yet, a concat of empty lists) reads as empty, and pushes and concats that start from one
 * grow it as before.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type MessageShape,
  SHAPE_ANY,
  SHAPE_RESULT,
  SHAPE_TEXT,
  ShapeList,
} from "../../src/tape/_message_shape.ts";

const TEXT = { role: "user", content: "hi" };
const RESULT = { role: "tool", content: "ok", tool_call_id: "c", name: "n" };

function filled(count: number): ShapeList {
  const list = new ShapeList();
  for (let i = 0; i < count; i++) {
    list.push(i % 2 === 0 ? SHAPE_TEXT : SHAPE_RESULT, i % 2 === 0 ? TEXT : RESULT);
  }
  return list;
}

function shapesOf(list: ShapeList): MessageShape[] {
  return Array.from({ length: list.length }, (_, i) => list.get(i));
}

test("an empty ShapeList reads as empty and copies past its end by spread", () => {
  const list = new ShapeList();
  assert.equal(list.length, 0);
  assert.equal(list.get(0), SHAPE_ANY);
  const out: Record<string, unknown>[] = [];
  list.copyAll([TEXT], out, 0);
  assert.deepEqual(out, [TEXT]);
  assert.notEqual(out[0], TEXT);
  assert.equal(list.concat(new ShapeList()).length, 0);
});

test("pushes and concats starting from an empty ShapeList keep every shape in order", () => {
  const pushed = filled(40);
  assert.deepEqual(
    shapesOf(pushed),
    Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? SHAPE_TEXT : SHAPE_RESULT)),
  );
  for (const [a, b] of [[0, 0], [0, 5], [5, 0], [10, 10], [16, 1], [3, 40]]) {
    const joined = filled(a!).concat(filled(b!));
    assert.deepEqual(shapesOf(joined), [...shapesOf(filled(a!)), ...shapesOf(filled(b!))]);
    joined.push(SHAPE_TEXT, TEXT);
    assert.equal(joined.get(a! + b!), SHAPE_TEXT);
    const out: Record<string, unknown>[] = [];
    const sources = Array.from(
      { length: joined.length },
      (_, i) =>
        i < a!
          ? (i % 2 === 0 ? TEXT : RESULT)
          : i < a! + b!
          ? ((i - a!) % 2 === 0 ? TEXT : RESULT)
          : TEXT,
    );
    joined.copyAll(sources, out, 0);
    assert.deepEqual(out, sources);
  }
});
