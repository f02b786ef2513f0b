import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ShellManager } from "../../../src/environment/shell_manager.ts";
import {
  type BuiltinToolDeps,
  createBuiltinTools,
  isKeywordOnlyTool,
  registerBuiltinTools,
} from "../../../src/tools/builtin/mod.ts";
import { renderToolsPrompt } from "../../../src/tools/prompt.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";

describe("builtin tool catalogue", () => {
  test("every builtin tool has its runtime name, in catalogue order", () => {
    const tools = createBuiltinTools({ shells: new ShellManager() });
    assert.deepEqual(tools.map((tool) => tool.name), [
      "bash",
      "bash.output",
      "bash.kill",
      "fs.read",
      "fs.write",
      "fs.edit",
      "skill",
      "tape.info",
      "tape.search",
      "tape.reset",
      "tape.handoff",
      "tape.anchors",
      "web.fetch",
      "subagent",
      "help",
      "quit",
      "model",
      "reasoning_effort",
      "spill.read",
    ]);
    const operatorOnly = tools.filter((tool) => !tool.agentUse).map((tool) => tool.name);
    assert.deepEqual(operatorOnly, ["help", "quit", "model", "reasoning_effort"]);
    assert.deepEqual(
      tools.filter(isKeywordOnlyTool).map((tool) => tool.name),
      ["tape.search", "subagent"],
    );
  });

  test("model-facing signatures follow the seed-era parameters", () => {
    const registry = new ToolRegistry();
    const tools = registerBuiltinTools(registry, { shells: new ShellManager() });
    assert.equal(registry.size, tools.length);
    assert.equal(registry.resolveToolName("bash_output"), "bash.output");
    const prompt = renderToolsPrompt(registry.list());
    for (
      const signature of [
        "bash(command, cwd?, timeout_seconds?, background?)",
        "bash_output(shell_id, offset?, limit?)",
        "bash_kill(shell_id)",
        "fs_read(path, offset?, limit?)",
        "fs_write(path, content)",
        "fs_edit(path, old, new, start?)",
        "skill(name?)",
        "tape_info()",
        "tape_search(query, limit?, start?, end?, kinds?)",
        "tape_reset(archive?)",
        "tape_handoff(name?, summary?)",
        "tape_anchors()",
        "web_fetch(url, headers?, timeout?)",
        "subagent(prompt, model?, session?, allowed_tools?, allowed_skills?)",
        "spill_read(handle, cursor?, count?, from_end?)",
      ]
    ) {
      assert.ok(prompt.includes(`- ${signature}`), signature);
    }
    assert.doesNotMatch(prompt, /- (help|quit|model|reasoning_effort)\(/);
  });

  test("missing shells are rejected", () => {
    assert.throws(() => createBuiltinTools({} as BuiltinToolDeps), {
      name: "TypeError",
      message: "Cannot create builtin tools: deps.shells must be a ShellManager",
    });
  });
});
