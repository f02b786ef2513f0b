import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  formatToolCall,
  formatToolError,
  formatToolSuccess,
} from "../../../src/channels/cli/_tool_report.ts";
import { BubError } from "../../../src/kernel/errors.ts";

describe("CLI tool-call report lines (builtin §10.4)", () => {
  test("a short call is one line with JSON-encoded values", () => {
    assert.equal(
      formatToolCall("fs.read", { path: "a.md", offset: 2, limit: null }),
      '● fs.read(path: "a.md", offset: 2, limit: null)',
    );
    assert.equal(formatToolCall("tape.info", {}), "● tape.info()");
  });

  test("a call over 120 characters gets one parameter per line", () => {
    const cmd = "x".repeat(130);
    assert.equal(
      formatToolCall("bash", { cmd, cwd: "/tmp" }),
      `● bash(\n    cmd: "${cmd}",\n    cwd: "/tmp",\n  )`,
    );
  });

  test("values are cut to 800 characters and the whole call to 1200", () => {
    const one = formatToolCall("fs.write", { content: "y".repeat(900) });
    assert.ok(one.includes(`"${"y".repeat(799)}...`), "value cut at 800 characters");
    assert.ok(!one.includes("y".repeat(800)));
    const many = formatToolCall("fs.write", { a: "z".repeat(700), b: "z".repeat(700) });
    const full = `● fs.write(\n    a: "${"z".repeat(700)}",\n    b: "${"z".repeat(700)}",\n  )`;
    assert.equal(many, `${full.slice(0, 1200)}... truncated ${full.length - 1200} chars`);
  });

  test("success and failure lines; the error is indented JSON {type, message} cut to 4000", () => {
    assert.equal(formatToolSuccess(12.4), "  ⎿ completed in 12 ms");
    assert.deepEqual(formatToolError(new BubError("tool", "bad input"), 3), [
      "  ⎿ failed in 3 ms",
      "    {",
      `      "type": "${new BubError("tool", "x").name}",`,
      '      "message": "bad input"',
      "    }",
    ]);
    const long = formatToolError(new Error("e".repeat(5000)), 1).join("\n");
    assert.match(long, /\.\.\. truncated \d+ chars$/);
  });
});
