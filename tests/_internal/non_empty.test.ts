import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { nonEmptyString } from "../../src/_internal/non_empty.ts";

describe("nonEmptyString", () => {
  test("returns a non-empty string and names the bad value otherwise", () => {
    assert.equal(nonEmptyString("x", "Cannot go: name must be a non-empty string"), "x");
    assert.throws(() => nonEmptyString("", "Cannot go: name must be a non-empty string"), {
      name: "TypeError",
      message: 'Cannot go: name must be a non-empty string, got ""',
    });
    assert.throws(() => nonEmptyString(undefined, "Cannot go: name must be a non-empty path"), {
      message: "Cannot go: name must be a non-empty path, got undefined",
    });
  });
});
