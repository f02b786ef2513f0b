import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { splitMessageText } from "../../../src/channels/telegram/_split.ts";

describe("Telegram message splitting", () => {
  test("texts within the limit stay whole; blank text gives no piece", () => {
    assert.deepEqual(splitMessageText("short"), ["short"]);
    assert.deepEqual(splitMessageText("x".repeat(4096)), ["x".repeat(4096)]);
    assert.deepEqual(splitMessageText("  "), []);
  });

  test("cuts prefer a newline, then a space, in the second half of the window, and keep every character", () => {
    assert.deepEqual(splitMessageText("aaaaaa\nbbbbbbb", 10), ["aaaaaa\n", "bbbbbbb"]);
    assert.deepEqual(splitMessageText("aaaaaa bbbbbbb", 10), ["aaaaaa ", "bbbbbbb"]);
    assert.deepEqual(splitMessageText("a\nbbbbbbbbbbbb", 10), ["a\nbbbbbbbb", "bbbb"]);
  });

  test("a surrogate pair is never cut in half", () => {
    const text = "x".repeat(9) + "😀" + "y";
    const pieces = splitMessageText(text, 10);
    assert.deepEqual(pieces, ["x".repeat(9), "😀y"]);
    assert.equal(pieces.join(""), text);
  });

  test("a limit below 2 is a RangeError naming the value", () => {
    assert.throws(() => splitMessageText("abc", 1), { name: "RangeError", message: /got 1/ });
  });
});
