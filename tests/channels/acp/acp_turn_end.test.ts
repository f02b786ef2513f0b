/**
 * `bub acp`: how a prompt ends and what it reports besides text — the stop reason from each
 * provider's finish (chat completions, Responses, Anthropic, through the mock model server), the
 * step budget, `usage_update` after each model call, and reasoning as `agent_thought_chunk`.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type * as acp from "@agentclientprotocol/sdk";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { type MockReply, mockReply, type MockRequest } from "../../../src/testing/_mock_reply.ts";
import { type TempDirs, tempDirs } from "../../cli/_spawn.ts";
import { editorModel, initialize, kinds, newSession, say, startEditor, turn } from "./_editor.ts";

/** Each protocol's raw finish for an answer cut at the output limit, and for a refusal. */
const FINISH = {
  chat: { length: "length", refusal: "content_filter" },
  responses: { length: "max_output_tokens", refusal: "content_filter" },
  anthropic: { length: "max_tokens", refusal: "refusal" },
} as const;

/** The last user prompt of a request in any of the three protocols, as text. */
function lastPrompt(request: MockRequest): string {
  const body = request.body as { messages?: unknown[]; input?: unknown[] };
  return JSON.stringify((body.messages ?? body.input ?? []).at(-1) ?? "");
}

/** The model: "cut me short" and "refuse" end with the protocol's finish; the rest as the editor's. */
function endingModel(request: MockRequest): MockReply {
  const prompt = lastPrompt(request);
  const finish = FINISH[request.protocol as keyof typeof FINISH];
  if (prompt.includes("cut me short")) {
    return mockReply.text("The answer goes on and", { finishReason: finish.length });
  }
  if (prompt.includes("refuse")) {
    return mockReply.text("I can't help with that.", { finishReason: finish.refusal });
  }
  if (prompt.includes("count the tokens")) {
    return mockReply.text("counted", { usage: { promptTokens: 1200, completionTokens: 34 } });
  }
  if (prompt.includes("think first")) {
    return { reasoning: ["Weighing ", "the options."], text: "thought it through" };
  }
  if (request.protocol !== "chat") return mockReply.text("plain answer");
  return editorModel(request);
}

describe("bub acp: stop reasons, usage and thoughts", () => {
  let dirs: TempDirs;
  let model: MockLlmServer;
  let env: Record<string, string>;

  before(async () => {
    dirs = tempDirs("bub-acp-test-");
    model = await MockLlmServer.start({ script: endingModel });
    env = { BUB_MODEL: "custom:x", BUB_API_BASE: model.url, BUB_API_KEY: "sk-editor" };
  });

  after(async () => {
    await model?.close();
    dirs?.remove();
  });

  const models = [
    ["chat completions", "openai:gpt-test", "chat"],
    ["Responses", "openai-responses:gpt-test", "responses"],
    ["Anthropic", "anthropic:claude-test", "anthropic"],
  ] as const;
  for (const [name, id, protocol] of models) {
    test(`${name}: output limit → max_tokens, refusal → refusal, a finished answer → end_turn`, async () => {
      await using editor = startEditor(dirs, { ...env, BUB_MODEL: id });
      const before = model.requests.length;
      const stops = await editor.run(async (ctx) => {
        await initialize(ctx);
        const { sessionId } = await newSession(ctx, dirs.workspace);
        const stops: string[] = [];
        for (const text of ["please cut me short", "please refuse", "hello"]) {
          stops.push((await say(ctx, sessionId, text)).stopReason);
        }
        return stops;
      });
      assert.deepEqual(stops, ["max_tokens", "refusal", "end_turn"], editor.stderr());
      assert.ok(model.requests.slice(before).every((request) => request.protocol === protocol));
      const text = turn(editor.updates)
        .filter((n) => n.update.sessionUpdate === "agent_message_chunk")
        .map((n) => (n.update as { content: { text: string } }).content.text)
        .join("|");
      assert.match(text, /The answer goes on and/);
      assert.match(text, /I can't help with that\./);
      assert.ok(!kinds(editor.updates).includes("usage_update"), "no window, no usage_update");
    });
  }

  test("the step budget (max_steps) ends a prompt with max_turn_requests", async () => {
    await using editor = startEditor(dirs, { ...env, BUB_MAX_STEPS: "1" });
    const response = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      return await say(ctx, sessionId, "please write the file");
    });
    assert.equal(response.stopReason, "max_turn_requests");
    assert.deepEqual(kinds(editor.updates), ["tool_call", "tool_call_update"]);
  });

  test("usage_update after each model call: tokens in context against context_window, input/output/total in _meta", async () => {
    await using editor = startEditor(dirs, { ...env, BUB_CONTEXT_WINDOW: "200000" });
    await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      await say(ctx, sessionId, "please write the file");
      await say(ctx, sessionId, "count the tokens");
    });
    assert.deepEqual(kinds(editor.updates), [
      "usage_update",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
      "usage_update",
      "agent_message_chunk",
      "usage_update",
    ]);
    const usage = turn(editor.updates)
      .filter((n) => n.update.sessionUpdate === "usage_update")
      .map((n) => n.update as acp.UsageUpdate);
    // The mock reports 10 + 5 tokens unless told otherwise.
    assert.deepEqual(usage.map((u) => [u.used, u.size]), [[15, 200000], [15, 200000], [
      1234,
      200000,
    ]]);
    assert.deepEqual(usage[2]!._meta, {
      usage: { inputTokens: 1200, outputTokens: 34, totalTokens: 1234 },
    });
  });

  test("the model's reasoning streams as agent_thought_chunk before its answer", async () => {
    await using editor = startEditor(dirs, env);
    const response = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      return await say(ctx, sessionId, "think first");
    });
    assert.equal(response.stopReason, "end_turn");
    const updates = turn(editor.updates).map((n) => n.update) as unknown as {
      sessionUpdate: string;
      content: { type: string; text: string };
    }[];
    assert.deepEqual(updates.map((u) => [u.sessionUpdate, u.content.text]), [
      ["agent_thought_chunk", "Weighing "],
      ["agent_thought_chunk", "the options."],
      ["agent_message_chunk", "thought it through"],
    ]);
  });
});
