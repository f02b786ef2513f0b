/**
 * The body's fixed text, the tools array and the system message are reused between calls (issue
 * 13: less CPU per call): every body must still be exactly `JSON.stringify` of the merged body,
 * whatever the order of requests with other models, settings, tools and prompts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type ChatProtocol, chatRequestBody } from "../../src/agent/providers/_chat_body.ts";
import type { ChatTool, ModelRequest } from "../../src/agent/model_client.ts";
import { parseModelId } from "../../src/agent/providers/provider_presets.ts";
import { bodyExtras } from "../../src/agent/providers/_model_stream.ts";
import { mergeBody } from "../../src/agent/providers/_request_body.ts";

function tool(name: string, description = `Tool ${name}`): ChatTool {
  return {
    type: "function",
    function: {
      name,
      description,
      parameters: { type: "object", properties: { value: { type: "number" } } },
    },
  };
}

const TOOLS_A = [tool("fs_read"), tool("bench_noop")];
const TOOLS_B = [tool("fs_read"), tool("web_fetch", 'Fetches "a" URL: é')];

/** What the body must be: the merged body with its real messages and tools, serialised. */
function expected(protocol: ChatProtocol, request: ModelRequest): string {
  const id = parseModelId(request.model);
  const body: Record<string, unknown> = { model: id.model };
  if (request.maxTokens != null) body.max_tokens = request.maxTokens;
  body.messages = request.messages.map((message) => ({
    role: message.role,
    content: message.content,
  }));
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((item) => ({
      type: "function",
      function: {
        name: item.function.name,
        description: item.function.description,
        parameters: item.function.parameters,
      },
    }));
  }
  body.stream = true;
  body.stream_options = { include_usage: true };
  return JSON.stringify(mergeBody(body, bodyExtras(protocol, request).extras));
}

test("bodies built one after another equal the merged body serialised", () => {
  const prompts = ['You are Bub.\n"quoted" é', "Another prompt"];
  const variants: Partial<ModelRequest>[] = [
    {},
    { maxTokens: 1024 },
    { tools: TOOLS_A },
    { tools: TOOLS_B },
    { tools: [] },
    { completionArgs: { temperature: 0.2, top_p: 1 } },
    { completionArgs: { top_p: 1, temperature: 0.2 } },
    { completionArgs: { stream_options: undefined, seed: 7 } },
    { completionArgs: { seed: 7 } },
    { completionArgs: { stream_options: { include_usage: false }, user: "u" } },
    { completionArgs: { reasoning_effort: "low" }, reasoningEffort: "high" },
    { reasoningEffort: "medium", tools: TOOLS_A },
    { model: "openai:other", tools: TOOLS_A, maxTokens: 5 },
  ];
  let checked = 0;
  for (let round = 0; round < 3; round++) {
    for (const protocol of ["openai-compatible", "openai-chat"] as ChatProtocol[]) {
      for (const [i, variant] of variants.entries()) {
        const request: ModelRequest = {
          model: "openai:bench",
          messages: [
            { role: "system", content: prompts[(i + round) % 2]! },
            { role: "user", content: `turn ${i} ${round}` },
          ],
          ...variant,
        };
        const id = parseModelId(request.model);
        assert.equal(chatRequestBody(protocol, id, request), expected(protocol, request));
        checked++;
      }
    }
  }
  assert.equal(checked, 78);
});

test("a tool changed in place between calls is sent as changed", () => {
  const id = parseModelId("openai:bench");
  const tools = [tool("a"), tool("b")];
  const request = (): ModelRequest => ({
    model: "openai:bench",
    messages: [{ role: "user", content: "hi" }],
    tools: tools.map((item) => ({ ...item, function: { ...item.function } })),
  });
  assert.equal(
    chatRequestBody("openai-compatible", id, request()),
    expected("openai-compatible", request()),
  );
  tools[1] = tool("b", "Now described otherwise");
  assert.equal(
    chatRequestBody("openai-compatible", id, request()),
    expected("openai-compatible", request()),
  );
});
