/**
 * A full tool round trip through `processInbound` over each wire protocol the builtin speaks:
 * OpenAI chat completions, Anthropic messages and OpenAI Responses (`openai-responses:`).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { eventData, TEST_API_KEY, turnFixture } from "./_turn_fixture.ts";

function echoTool() {
  return defineTool({
    name: "tests.echo",
    description: "Echo the text",
    parameters: z.object({ text: z.string() }),
    handler: ({ text }) => `echo:${text}`,
  });
}

const script = () => [
  mockReply.toolCall("tests_echo", { text: "a" }, { reasoning: "considering" }),
  mockReply.text("after the tool", {
    chunks: 2,
    usage: { promptTokens: 30, completionTokens: 7, cachedTokens: 5 },
  }),
];

describe("provider paths", () => {
  test("Anthropic: the tool round trip sends tool_use / tool_result blocks, authenticates with x-api-key and records usage with cached tokens", async () => {
    await using fx = await turnFixture({
      script: script(),
      tools: [echoTool()],
      env: { BUB_MODEL: "anthropic:claude-test" },
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "after the tool");
    assert.deepEqual(fx.server.requests.map((r) => r.path), ["/v1/messages", "/v1/messages"]);
    assert.equal(fx.server.requests[0]!.headers["x-api-key"], TEST_API_KEY);
    const events = fx.turns[0]!.events;
    assert.deepEqual(events[0], { kind: "reasoning", data: { delta: "considering" } });
    const second = fx.bodies()[1]!;
    assert.equal(
      typeof second.system === "string" || Array.isArray(second.system),
      true,
      "system prompt sent as system",
    );
    const messages = second.messages as Array<
      { role: string; content: Array<Record<string, unknown>> }
    >;
    const callId =
      (events.find((e) => e.kind === "tool_call")!.data.tool_calls as Array<{ id: string }>)[0]!.id;
    assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "user"]);
    assert.deepEqual(messages[1]!.content, [{
      type: "tool_use",
      id: callId,
      name: "tests_echo",
      input: { text: "a" },
    }]);
    assert.deepEqual(messages[2]!.content, [{
      type: "tool_result",
      tool_use_id: callId,
      content: "echo:a",
    }]);
    const runs = eventData(await fx.entries(), "run");
    assert.deepEqual(runs.map((r) => [r.provider, r.model]), [
      ["anthropic", "anthropic:claude-test"],
      ["anthropic", "anthropic:claude-test"],
    ]);
    assert.deepEqual(runs[1]!.usage, {
      prompt_tokens: 30,
      completion_tokens: 7,
      total_tokens: 37,
      prompt_tokens_details: { cached_tokens: 5 },
    });
  });

  test("OpenAI Responses: the tool round trip sends function_call / function_call_output items to /responses and records usage", async () => {
    await using fx = await turnFixture({
      script: script(),
      tools: [echoTool()],
      env: { BUB_MODEL: "openai-responses:gpt-test" },
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "after the tool");
    assert.deepEqual(fx.server.requests.map((r) => r.path), ["/v1/responses", "/v1/responses"]);
    assert.equal(fx.server.requests[0]!.headers.authorization, `Bearer ${TEST_API_KEY}`);
    const second = fx.bodies()[1]!;
    assert.equal(second.model, "gpt-test");
    assert.equal(second.max_output_tokens, 16384);
    const input = (second.input as Array<Record<string, unknown>>).filter((item) =>
      item.role !== "system"
    );
    const callId = String(input[1]!.call_id);
    assert.deepEqual(input.slice(1), [
      { type: "function_call", call_id: callId, name: "tests_echo", arguments: '{"text":"a"}' },
      { type: "function_call_output", call_id: callId, output: "echo:a" },
    ]);
    const toolCall = (await fx.entries()).find((e) => e.kind === "tool_call")!;
    assert.equal((toolCall.payload as { calls: Array<{ id: string }> }).calls[0]!.id, callId);
    const runs = eventData(await fx.entries(), "run");
    assert.equal(runs[1]!.provider, "openai-responses");
    assert.equal((runs[1]!.usage as { total_tokens: number }).total_tokens, 37);
    assert.deepEqual((runs[1]!.usage as { prompt_tokens_details: unknown }).prompt_tokens_details, {
      cached_tokens: 5,
    });
  });

  test("OpenAI chat: the tool round trip sends an assistant tool_calls message and a tool message with the call id", async () => {
    await using fx = await turnFixture({ script: script(), tools: [echoTool()] });
    await fx.turn("go");
    assert.deepEqual(fx.server.requests.map((r) => r.path), [
      "/v1/chat/completions",
      "/v1/chat/completions",
    ]);
    const messages = (fx.bodies()[1]!.messages as Array<Record<string, unknown>>).slice(1);
    const callId = (messages[1]!.tool_calls as Array<{ id: string }>)[0]!.id;
    assert.deepEqual(messages[1]!.tool_calls, [
      { id: callId, type: "function", function: { name: "tests_echo", arguments: '{"text":"a"}' } },
    ]);
    assert.deepEqual(messages[2], { role: "tool", tool_call_id: callId, content: "echo:a" });
  });
});
