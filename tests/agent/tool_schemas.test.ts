/**
 * A step's tool schemas and names are built once per tool list and shared by its calls (issue 13:
 * no schema objects per call): the same list gives the same frozen objects, a list changed in
 * place gets new ones, and the request body's tools array built from a shared list is the same
 * text as the one built from fresh, unshared schemas.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatRequestBody } from "../../src/agent/providers/_chat_body.ts";
import type { ChatMessage, ChatTool, ModelRequest } from "../../src/agent/model_client.ts";
import { parseModelId } from "../../src/agent/providers/provider_presets.ts";
import { isSharedToolList, toolListParts } from "../../src/agent/_tool_calls.ts";
import { defineTool, modelToolName, type Tool } from "../../src/tools/tool.ts";

function tool(name: string): Tool {
  return defineTool({
    name,
    description: `Tool ${name}`,
    parameters: { type: "object", properties: { value: { type: "number" } } },
    handler: () => "ok",
  });
}

test("the same tool list gives the same frozen schemas and names", () => {
  const tools = [tool("fs_read"), tool("bash")];
  const first = toolListParts(tools);
  const second = toolListParts(tools);
  assert.equal(second.schemas, first.schemas);
  assert.equal(second.names, first.names);
  assert.deepEqual(first.names, ["fs_read", "bash"]);
  assert.deepEqual(first.schemas, tools.map((item) => item.toSchema()));
  assert.ok(Object.isFrozen(first.schemas) && Object.isFrozen(first.schemas![0]));
  assert.ok(Object.isFrozen(first.schemas![0]!.function));
  assert.ok(isSharedToolList(first.schemas!));
});

test("a tool list changed in place gets new schemas", () => {
  const tools = [tool("a"), tool("b")];
  const first = toolListParts(tools);
  tools.push(tool("c"));
  const grown = toolListParts(tools);
  assert.notEqual(grown.schemas, first.schemas);
  assert.deepEqual(grown.names, ["a", "b", "c"]);
  tools[0] = tool("d");
  assert.deepEqual(toolListParts(tools).names, ["d", "b", "c"]);
});

test("no tools: no schemas", () => {
  assert.equal(toolListParts([]).schemas, null);
});

test("the body of a shared tool list equals the body of fresh schemas, for both protocols", () => {
  const tools = [tool("fs_read"), tool("web_fetch")];
  const shared = toolListParts(tools).schemas!;
  const fresh: ChatTool[] = tools.map((item) => item.toSchema());
  const id = parseModelId("openai:bench");
  const request = (list: readonly ChatTool[]): ModelRequest => ({
    model: "openai:bench",
    messages: [{ role: "user", content: "hi" }] as ChatMessage[],
    tools: list,
    maxTokens: 64,
  });
  for (const protocol of ["openai-chat", "openai-compatible"] as const) {
    const expected = chatRequestBody(protocol, id, request(fresh));
    assert.equal(chatRequestBody(protocol, id, request(shared)), expected);
    assert.equal(chatRequestBody(protocol, id, request(shared)), expected);
    assert.equal(chatRequestBody(protocol, id, request(fresh)), expected);
  }
});

test("a dotted tool name maps to the same model name on every call", () => {
  assert.equal(modelToolName("fs.read"), "fs_read");
  assert.equal(modelToolName("fs.read"), "fs_read");
  assert.equal(modelToolName("a.b.c"), "a_b_c");
  assert.equal(modelToolName("bash"), "bash");
});
