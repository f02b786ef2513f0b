/**
 * Unknown-tool recovery (builtin spec §4.6.3, §16 items 41–42): difflib-style close matches and
 * the guidance texts.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { closeMatches, similarityRatio } from "../../src/builtin/_difflib.ts";
import { recoverUnknownTool, unknownToolGuidance } from "../../src/builtin/tool_guidance.ts";
import { ToolCall } from "../../src/kernel/agent_hooks.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { defineTool } from "../../src/tools/tool.ts";

const PY_KEYWORDS = [
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
];

function call(tool: string): ToolCall {
  return new ToolCall({ runId: "run-x", tool, arguments: {} });
}

describe("difflib", () => {
  test("similarityRatio is 2*matches/total as SequenceMatcher.ratio", () => {
    assert.equal(similarityRatio("abcd", "bcde"), 0.75);
    assert.equal(similarityRatio("fs_read", "fs_reed"), 12 / 14);
    assert.equal(similarityRatio("", ""), 1);
    assert.equal(similarityRatio("abc", "xyz"), 0);
  });

  test("closeMatches reproduces get_close_matches' documented examples, best first", () => {
    assert.deepEqual(closeMatches("appel", ["ape", "apple", "peach", "puppy"]), ["apple", "ape"]);
    assert.deepEqual(closeMatches("wheel", PY_KEYWORDS), ["while"]);
    assert.deepEqual(closeMatches("pineapple", PY_KEYWORDS), []);
    assert.deepEqual(closeMatches("accept", PY_KEYWORDS), ["except"]);
  });

  test("closeMatches returns at most n matches", () => {
    assert.deepEqual(closeMatches("tool", ["tool1", "tool2", "tool3", "tool4"], 3).length, 3);
  });
});

describe("guidance", () => {
  test("lists up to three close matches", () => {
    assert.equal(
      unknownToolGuidance("fs_reed", ["bash", "fs_write", "fs_read", "web_fetch"]),
      "Tool `fs_reed` does not exist. Did you mean one of the following?\n- fs_read\n- fs_write",
    );
    const many = unknownToolGuidance("tape_x", ["tape_a", "tape_b", "tape_c", "tape_d"]);
    assert.equal(many.split("\n- ").length - 1, 3);
  });

  test("points at the skill tool when nothing is close and a skill tool exists", () => {
    assert.equal(
      unknownToolGuidance("tepadr", ["skill", "bash"]),
      "Tool `tepadr` does not exist. Invoke the `skill` tool to list available skills.",
    );
  });

  test("says no similar tool is available otherwise", () => {
    assert.equal(
      unknownToolGuidance("tepadr", ["bash"]),
      "Tool `tepadr` does not exist. No similar tool is available.",
    );
  });

  test("recoverUnknownTool returns null for a known model alias and replace(guidance) for an unknown name, considering only agent-usable tools", () => {
    const registry = new ToolRegistry([
      defineTool({ name: "bash.output", handler: () => "" }),
      defineTool({ name: "fs.read", handler: () => "" }),
      defineTool({ name: "ops.secret", agentUse: false, handler: () => "" }),
    ]);
    assert.equal(recoverUnknownTool(call("bash_output"), registry), null);
    const decision = recoverUnknownTool(call("fs_reed"), registry);
    assert.equal(decision?.action, "replace");
    assert.equal(
      decision?.result,
      "Tool `fs_reed` does not exist. Did you mean one of the following?\n- fs_read",
    );
    assert.equal(recoverUnknownTool(call("ops_secret"), registry)?.action, "replace");
  });
});
