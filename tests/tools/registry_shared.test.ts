/**
 * The registry's shared tool list (issue 13: the agent's steps reuse it instead of copying the
 * registry's tools): the same frozen array while the tools are the same, a new one with the new
 * tools after a registration, a deletion or a source answering with new tools.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { defineTool, type Tool } from "../../src/tools/tool.ts";

function tool(name: string): Tool {
  return defineTool({ name, handler: () => "ok" });
}

const names = (tools: readonly Tool[]) => tools.map((item) => item.name);

test("the shared list is the same frozen array while the tools are the same", () => {
  const registry = new ToolRegistry([tool("fs.read"), tool("bash")]);
  const first = registry.listShared();
  assert.ok(Object.isFrozen(first));
  assert.deepEqual(names(first), ["fs.read", "bash"]);
  assert.equal(registry.listShared(), first);
  registry.get("bash");
  assert.equal(registry.listShared(), first);
});

test("a registration or a deletion gives a new shared list", () => {
  const registry = new ToolRegistry([tool("a")]);
  const first = registry.listShared();
  registry.register(tool("b"));
  assert.deepEqual(names(registry.listShared()), ["a", "b"]);
  assert.notEqual(registry.listShared(), first);
  registry.delete("a");
  assert.deepEqual(names(registry.listShared()), ["b"]);
});

test("the shared list follows the sources: reused while they answer the same, rebuilt after", () => {
  const registry = new ToolRegistry([tool("own")]);
  let first: readonly Tool[] = [tool("x")];
  let second: readonly Tool[] = [tool("y")];
  registry.addSource(() => first);
  registry.addSource(() => second);
  const a = registry.listShared();
  assert.deepEqual(names(a), ["own", "x", "y"]);
  assert.equal(registry.listShared(), a);
  second = [tool("z"), tool("own")];
  const b = registry.listShared();
  assert.deepEqual(names(b), ["own", "x", "z"]);
  assert.deepEqual(names(registry.list()), names(b));
  first = [];
  assert.deepEqual(names(registry.listShared()), ["own", "z"]);
  assert.equal(registry.resolveToolName("Z"), "z");
});
