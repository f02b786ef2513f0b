import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  LlmCallDecision,
  toLlmCallDecision,
  ToolCallDecision,
  type ToolDecision,
  toToolCallDecision,
} from "../../src/kernel/decisions.ts";
import { BubError } from "../../src/kernel/errors.ts";

function invalid(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(BubError.isInstance(error), String(error));
    assert.equal(error.kind, "invalid_input");
    assert.match(error.message, pattern);
    return true;
  };
}

describe("decisions by shape", () => {
  test("the classes build the documented plain shapes (args/reason mirror arguments/message)", () => {
    const deny: ToolDecision = ToolCallDecision.deny("no");
    assert.equal(deny.action, "deny");
    assert.equal(ToolCallDecision.deny("no").reason, "no");
    assert.deepEqual(ToolCallDecision.proceed({ a: 1 }).args, { a: 1 });
    assert.equal(ToolCallDecision.replace(5).result, 5);
    assert.deepEqual({ ...LlmCallDecision.finish("t") }, { action: "finish", text: "t" });
  });

  test("plain objects become class instances; instances pass through", () => {
    const same = ToolCallDecision.replace("x");
    assert.equal(toToolCallDecision(same), same);
    const deny = toToolCallDecision({ action: "deny", reason: "r" });
    assert.ok(deny instanceof ToolCallDecision);
    assert.equal(deny.message, "r");
    assert.equal(toToolCallDecision({ action: "deny", message: "m" }).message, "m");
    assert.equal(toToolCallDecision({ action: "deny" }).message, "");
    assert.deepEqual(toToolCallDecision({ action: "proceed", args: { x: 1 } }).arguments, { x: 1 });
    assert.deepEqual(toToolCallDecision({ action: "proceed", arguments: { y: 2 } }).arguments, {
      y: 2,
    });
    assert.equal(toToolCallDecision({ action: "proceed" }).arguments, null);
    assert.equal(toToolCallDecision({ action: "replace", result: 0 }).result, 0);
    assert.equal(toLlmCallDecision({ action: "finish", text: "t" }).text, "t");
    assert.equal(toLlmCallDecision({ action: "finish" }).text, "");
  });

  test("a copy of a decision from another package instance (same shape, other class) is accepted", () => {
    class Foreign {
      readonly action = "deny" as const;
      readonly message = "foreign";
    }
    assert.equal(toToolCallDecision(new Foreign()).message, "foreign");
  });

  test("an unknown action is a BubError invalid_input naming the action", () => {
    assert.throws(
      () => toToolCallDecision({ action: "allow" } as unknown as ToolDecision),
      invalid(
        /Unknown tool call decision action "allow": expected "proceed", "replace", "deny" or "ask"/,
      ),
    );
    assert.throws(
      () => toToolCallDecision({ action: "finish" } as unknown as ToolDecision),
      invalid(/action "finish"/),
    );
    assert.throws(
      () => toLlmCallDecision({ action: "deny" } as unknown as LlmCallDecision),
      invalid(/Unknown LLM call decision action "deny": expected "finish"/),
    );
  });

  test("fields of the wrong type are BubError invalid_input", () => {
    assert.throws(
      () => toToolCallDecision({ action: "deny", reason: 42 } as unknown as ToolDecision),
      invalid(/"reason" must be a string, got number/),
    );
    assert.throws(
      () => toToolCallDecision({ action: "proceed", args: [1] } as unknown as ToolDecision),
      invalid(/"args" must be an object, got an array/),
    );
    assert.throws(
      () => toToolCallDecision(null as unknown as ToolDecision),
      invalid(/expected an object with an "action", got null/),
    );
  });
});
