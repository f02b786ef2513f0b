import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { homedir } from "node:os";
import { join } from "node:path";
import { isPlainObject, isRecord } from "../../src/_internal/object.ts";
import { expandHome } from "../../src/_internal/home.ts";

class Point {
  x = 1;
}

describe("_internal/object", () => {
  test("isRecord: any non-null, non-array object; isPlainObject: only Object.prototype or null", () => {
    const plain = [{}, { a: 1 }, Object.create(null), JSON.parse('{"k":[1]}')];
    const records = [new Point(), new Map(), new Date(0)];
    const neither = [null, undefined, [], [1], "s", 1, true, () => {}];
    for (const value of plain) {
      assert.equal(isRecord(value), true);
      assert.equal(isPlainObject(value), true);
    }
    for (const value of records) {
      assert.equal(isRecord(value), true);
      assert.equal(isPlainObject(value), false);
    }
    for (const value of neither) {
      assert.equal(isRecord(value), false);
      assert.equal(isPlainObject(value), false);
    }
  });
});

describe("_internal/home", () => {
  test("expandHome expands '~' and '~/...' only", () => {
    assert.equal(expandHome("~", "/home/u"), "/home/u");
    assert.equal(expandHome("~/a/b", "/home/u"), "/home/u/a/b");
    assert.equal(expandHome("~/", "/home/u"), "/home/u");
    assert.equal(expandHome("~user/a", "/home/u"), "~user/a");
    assert.equal(expandHome("a/~/b", "/home/u"), "a/~/b");
    assert.equal(expandHome("/abs", "/home/u"), "/abs");
    assert.equal(expandHome("~/x"), join(homedir(), "x"));
  });
});
