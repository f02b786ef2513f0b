import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { defaultToolRegistry, ToolRegistry } from "../../src/tools/registry.ts";
import { defineTool, type Tool } from "../../src/tools/tool.ts";

function tool(name: string, agentUse = true): Tool {
  return defineTool({ name, agentUse, handler: () => name });
}

describe("ToolRegistry", () => {
  test("builtin 92: registering stores the tool; a same-named tool replaces it; default name is snake_case", async () => {
    const registry = new ToolRegistry();
    function fetchPageText(): string {
      return "first";
    }
    const first = registry.register(defineTool({ handler: fetchPageText }));
    assert.equal(first.name, "fetch_page_text");
    assert.equal(registry.get("fetch_page_text"), first);
    const second = registry.register(
      defineTool({ name: "fetch_page_text", handler: () => "second" }),
    );
    assert.equal(registry.size, 1);
    assert.equal(await registry.get("fetch_page_text")!.run({}), "second");
    assert.deepEqual(registry.list(), [second]);
  });

  test("defineTool rejects an anonymous handler without a name", () => {
    assert.throws(() => defineTool({ handler: (() => () => 1)() }), TypeError);
  });

  test("resolveToolName trims, casefolds and maps model-facing aliases to runtime names", () => {
    const registry = new ToolRegistry([tool("fs.read"), tool("bash")]);
    assert.equal(registry.resolveToolName("  FS_Read "), "fs.read");
    assert.equal(registry.resolveToolName("fs.READ"), "fs.read");
    assert.equal(registry.resolveToolName("Bash"), "bash");
    assert.equal(registry.resolveToolName("   "), null);
    assert.equal(registry.resolveToolName("nope"), null);
  });

  test("a runtime name wins over another tool's model-facing alias", () => {
    const registry = new ToolRegistry([tool("a.b"), tool("a_b")]);
    assert.equal(registry.resolveToolName("a_b"), "a_b");
    assert.equal(registry.resolveToolName("a.b"), "a.b");
  });

  test("builtin 91: resolveToolNames accepts trimmed aliases and runtime names and applies exclude", () => {
    const registry = new ToolRegistry([
      tool("bash"),
      tool("fs.read"),
      tool("subagent"),
      tool("tape.info"),
    ]);
    assert.deepEqual(registry.resolveToolNames([" FS_READ", "bash ", "fs.read"]), [
      "fs.read",
      "bash",
    ]);
    assert.deepEqual(registry.resolveToolNames(null, { exclude: ["SUBAGENT"] }), [
      "bash",
      "fs.read",
      "tape.info",
    ]);
    assert.deepEqual(registry.resolveToolNames(["bash", "tape_info"], { exclude: ["tape.info"] }), [
      "bash",
    ]);
    assert.deepEqual(registry.resolveToolNames([]), []);
  });

  test("builtin 91: unknown names in names or exclude throw with sorted, quoted, trimmed originals", () => {
    const registry = new ToolRegistry([tool("bash")]);
    assert.throws(
      () => registry.resolveToolNames([" zeta ", "bash", "Alpha"], { exclude: ["  mid"] }),
      { name: "RangeError", message: "unknown tool name(s): 'Alpha', 'mid', 'zeta'" },
    );
    assert.throws(() => registry.resolveToolNames(null, { exclude: ["ghost"] }), {
      message: "unknown tool name(s): 'ghost'",
    });
  });

  test("the default registry is one lazily created instance", () => {
    assert.equal(defaultToolRegistry(), defaultToolRegistry());
    assert.ok(defaultToolRegistry() instanceof ToolRegistry);
  });
});
