import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { jsonOrString } from "../../src/_internal/json.ts";

describe("jsonOrString", () => {
  test("JSON when it serializes, else the string form", () => {
    assert.equal(jsonOrString({ a: [1, "b"] }), '{"a":[1,"b"]}');
    assert.equal(jsonOrString(undefined), "undefined");
    assert.equal(jsonOrString(10n), "10");
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    assert.equal(jsonOrString(circular), "[object Object]");
  });
});
