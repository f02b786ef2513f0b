import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BubError, toErrorKind } from "../../src/kernel/errors.ts";

describe("BubError", () => {
  test("BubError.toString() is '[<kind>] <message>'; asDict() includes details only when non-empty", () => {
    const error = new BubError("tool", "Tool 'x' execution failed.", { error: "boom" });
    assert.equal(String(error), "[tool] Tool 'x' execution failed.");
    assert.deepEqual(error.asDict(), {
      kind: "tool",
      message: "Tool 'x' execution failed.",
      details: { error: "boom" },
    });
    assert.deepEqual(new BubError("config", "bad", {}).asDict(), {
      kind: "config",
      message: "bad",
    });
    assert.deepEqual(new BubError("unknown", "plain").asDict(), {
      kind: "unknown",
      message: "plain",
    });
    assert.ok(error instanceof Error);
    assert.equal(error.name, "BubError");
  });

  test("BubError rejects an unknown kind with a TypeError naming the value given", () => {
    assert.throws(() => new BubError("nope" as "tool", "x"), {
      name: "TypeError",
      message:
        /kind must be one of invalid_input, config, provider, tool, temporary, not_found, unknown, got "nope"/,
    });
    assert.equal(toErrorKind("provider"), "provider");
    assert.equal(toErrorKind("weird"), "unknown");
    assert.equal(toErrorKind(undefined), "unknown");
  });

  test("BubError.isInstance recognizes errors carrying the shared marker", () => {
    const error = new BubError("temporary", "later");
    assert.ok(BubError.isInstance(error));
    assert.equal(BubError.isInstance(new Error("x")), false);
    const foreign = Object.assign(new Error("copy"), { [Symbol.for("bub.error")]: true });
    assert.ok(BubError.isInstance(foreign), "a BubError from another copy of the package");
  });
});
