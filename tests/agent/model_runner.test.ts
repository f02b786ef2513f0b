/**
 * The model runner (builtin spec §16 items 31–50, kernel §13 item 98): request arguments,
 * fallbacks, keys, tool calls, tape recording and timeouts, over real HTTP to `MockLlmServer`.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { adaptMessagesForProvider } from "../../src/agent/providers/_provider_messages.ts";
import { ModelRunner } from "../../src/agent/model_runner.ts";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { recoverUnknownTool } from "../../src/builtin/tool_guidance.ts";
import { type LlmCallResult, ToolCall, type ToolCallResult } from "../../src/kernel/agent_hooks.ts";
import type { StreamEvent } from "../../src/kernel/stream.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool, modelTools } from "../../src/tools/tool.ts";
import { eventData, kinds, TEST_API_KEY, turnFixture } from "./_turn_fixture.ts";

type Msg = { role: string; content?: unknown; tool_calls?: unknown };

function echoTool() {
  return defineTool({
    name: "tests.echo",
    description: "Echo the text",
    parameters: z.object({ text: z.string() }),
    handler: ({ text }) => `echo:${text}`,
  });
}

async function sessionTape(store: TapeStore, home: string, sessionId = "cli:local"): Promise<Tape> {
  const tape = new Tape({ store }).sessionTape(sessionId, home);
  await tape.ensureBootstrapAnchor();
  return tape;
}

describe("request arguments", () => {
  test("streaming OpenAI calls send stream:true and stream_options include_usage, and the final chunk's usage lands in the run event", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.text("ok", { usage: { promptTokens: 8, completionTokens: 2, cachedTokens: 3 } }),
      ],
    });
    await fx.turn("hi");
    const body = fx.bodies()[0]!;
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    const run = eventData(await fx.entries(), "run")[0]!;
    assert.equal(run.status, "ok");
    assert.deepEqual(run.usage, {
      prompt_tokens: 8,
      completion_tokens: 2,
      total_tokens: 10,
      prompt_tokens_details: { cached_tokens: 3 },
    });
  });

  test("Anthropic calls (BUB_MODEL=anthropic:claude-test) send cache_control ephemeral and no stream_options", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("bonjour")],
      env: { BUB_MODEL: "anthropic:claude-test" },
    });
    const result = await fx.turn("hi");
    assert.equal(result.modelOutput, "bonjour");
    assert.equal(fx.server.requests[0]!.path, "/v1/messages");
    const body = fx.bodies()[0]!;
    assert.deepEqual(body.cache_control, { type: "ephemeral" });
    assert.equal("stream_options" in body, false);
    assert.equal(body.model, "claude-test");
  });

  test("BUB_COMPLETION_ARGS are forwarded but the managed model, max_tokens, stream and stream_options win", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("ok")],
      env: {
        BUB_COMPLETION_ARGS: JSON.stringify({
          temperature: 0.2,
          top_p: 0.5,
          model: "hijacked",
          max_tokens: 1,
          stream: false,
          stream_options: { include_usage: false },
        }),
        BUB_MAX_TOKENS: "512",
      },
    });
    await fx.turn("hi");
    const body = fx.bodies()[0]!;
    assert.equal(body.temperature, 0.2);
    assert.equal(body.top_p, 0.5);
    assert.equal(body.model, "gpt-test");
    assert.equal(body.max_tokens, 512);
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
  });

  test("a session reasoning_effort of high (recovered from the tape) overrides completion_args reasoning_effort low", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("ok")],
      env: { BUB_COMPLETION_ARGS: JSON.stringify({ reasoning_effort: "low" }) },
    });
    const tape = await sessionTape(fx.bub.getTapeStore<TapeStore>()!, fx.home);
    await tape.appendEvent("reasoning_effort_switch", { reasoning_effort: "high" });
    const result = await fx.turn("think hard");
    assert.equal(result.state.reasoning_effort, "high");
    assert.equal(fx.bodies()[0]!.reasoning_effort, "high");
  });

  test("an api_key map gives the openai client its key as a bearer token", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("ok")],
      env: { BUB_API_KEY: undefined, BUB_OPENAI_API_KEY: "sk-openai-only" },
    });
    assert.deepEqual(fx.builtin.runtime.settings.api_key, { openai: "sk-openai-only" });
    await fx.turn("hi");
    assert.equal(fx.server.requests[0]!.headers.authorization, "Bearer sk-openai-only");
  });
});

describe("fallbacks", () => {
  test("when the default model's call creation fails the next fallback is tried; when all fail the first error is thrown", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.error(503, "primary down"),
        mockReply.text("from fallback"),
        mockReply.error(500, "first failure"),
        mockReply.error(500, "second failure"),
      ],
      env: { BUB_FALLBACK_MODELS: JSON.stringify(["openai:gpt-fallback"]) },
    });
    const result = await fx.turn("hi");
    assert.equal(result.modelOutput, "from fallback");
    assert.deepEqual(fx.bodies().map((b) => b.model), ["gpt-test", "gpt-fallback"]);
    const run = eventData(await fx.entries(), "run")[0]!;
    assert.equal(run.status, "ok");
    await assert.rejects(fx.turn("again"), /first failure/);
    assert.deepEqual(fx.bodies().slice(2).map((b) => b.model), ["gpt-test", "gpt-fallback"]);
  });

  test("a call with a non-default model never uses the fallback models", async () => {
    await using fx = await turnFixture({
      script: [mockReply.error(503, "override down"), mockReply.text("unused")],
      env: { BUB_FALLBACK_MODELS: JSON.stringify(["openai:gpt-fallback"]) },
    });
    await assert.rejects(
      fx.turn({
        channel: "cli",
        chatId: "local",
        content: "hi",
        context: { model: "openai:gpt-other" },
      }),
      /override down/,
    );
    assert.deepEqual(fx.bodies().map((b) => b.model), ["gpt-other"]);
  });
});

describe("tool calls", () => {
  test("streamed tool-call argument pieces are concatenated and the provider's call ids are kept, in call order", async () => {
    await using fx = await turnFixture({
      script: [
        {
          toolCalls: [
            { id: "call_first", name: "tests_echo", arguments: ['{"te', 'xt":', '"one"}'] },
            { id: "call_second", name: "tests_echo", arguments: ['{"text"', ':"two"}'] },
          ],
        },
        mockReply.text("done"),
      ],
      tools: [echoTool()],
    });
    await fx.turn("go");
    const entry = (await fx.entries()).find((e) => e.kind === "tool_call")!;
    assert.deepEqual((entry.payload as { calls: unknown }).calls, [
      {
        id: "call_first",
        type: "function",
        function: { name: "tests_echo", arguments: '{"text":"one"}' },
      },
      {
        id: "call_second",
        type: "function",
        function: { name: "tests_echo", arguments: '{"text":"two"}' },
      },
    ]);
    const results = (await fx.entries()).find((e) => e.kind === "tool_result")!;
    assert.deepEqual((results.payload as { results: unknown }).results, ["echo:one", "echo:two"]);
  });

  test("without hooks an unknown tool yields a result dict whose message is Unknown tool name: <name>., and no hook fires", async () => {
    await using server = await MockLlmServer.start({
      script: [mockReply.toolCall("nope_tool", {}), mockReply.text("done")],
    });
    const store = new InMemoryTapeStore();
    const tape = await sessionTape(store, "/tmp/ws");
    const runner = new ModelRunner(
      new ProviderModelClient({ apiKey: TEST_API_KEY, apiBase: server.url }),
      null,
      { model: "openai:gpt-test" },
    );
    const events: StreamEvent[] = [];
    for await (
      const event of runner.run({
        tape,
        model: "openai:gpt-test",
        tools: modelTools([echoTool()]),
        systemPrompt: "",
        prompt: "go",
        state: {},
      })
    ) events.push(event);
    const toolResult = events.find((e) => e.kind === "tool_result")!;
    assert.deepEqual(toolResult.data.tool_results, [{
      kind: "tool",
      message: "Unknown tool name: nope_tool.",
    }]);
  });

  test("a tool executor without hooks runs tools unchanged and fires no agent hook", async () => {
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_echo", { text: "raw" }), mockReply.text("done")],
      plugins: [{
        name: "would-rewrite",
        beforeToolCall: () => {
          throw new Error("must not be called");
        },
        afterToolCall: ({ result }: { result: ToolCallResult }) => {
          result.result = "rewritten";
        },
        afterLlmCall: () => {
          throw new Error("must not be called");
        },
      }],
    });
    const runner = new ModelRunner(
      new ProviderModelClient({ apiKey: TEST_API_KEY, apiBase: fx.server.url }),
      null,
      { model: "openai:gpt-test" },
    );
    const tape = await sessionTape(new InMemoryTapeStore(), fx.home);
    const events: StreamEvent[] = [];
    const state: Record<string, unknown> = {};
    for await (
      const event of runner.run({
        tape,
        model: "openai:gpt-test",
        tools: modelTools([echoTool()]),
        systemPrompt: "",
        prompt: "go",
        state,
      })
    ) events.push(event);
    assert.deepEqual(events.find((e) => e.kind === "tool_result")!.data.tool_results, ["echo:raw"]);
    assert.equal("_runtime_tape" in state, false);
  });

  test("with builtin hooks an unknown fs_reed is replaced by guidance listing fs_read, and tepadr by guidance pointing at the skill tool", async () => {
    await using fx = await turnFixture({
      script: [
        {
          toolCalls: [{ id: "c1", name: "fs_reed", arguments: {} }, {
            id: "c2",
            name: "tepadr",
            arguments: {},
          }],
        },
        mockReply.text("done"),
      ],
      tools: [
        defineTool({ name: "fs.read", handler: () => "file" }),
        defineTool({ name: "skill", handler: () => "skills" }),
      ],
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "done");
    const entry = (await fx.entries()).find((e) => e.kind === "tool_result")!;
    const [reed, tepadr] = (entry.payload as { results: string[] }).results;
    const lines = reed!.split("\n");
    assert.equal(lines[0], "Tool `fs_reed` does not exist. Did you mean one of the following?");
    assert.equal(lines[1], "- fs_read", "the closest match comes first");
    assert.ok(lines.length <= 4, "at most three matches");
    assert.equal(
      tepadr,
      "Tool `tepadr` does not exist. Invoke the `skill` tool to list available skills.",
    );
  });

  test("the builtin beforeToolCall returns null for a known model alias such as bash_output", async () => {
    await using fx = await turnFixture({
      script: [],
      tools: [defineTool({ name: "bash.output", handler: () => "out" })],
    });
    const call = new ToolCall({ runId: "run-x", tool: "bash_output", arguments: {} });
    assert.equal(recoverUnknownTool(call, fx.builtin.runtime.registry), null);
    const before = fx.builtin.beforeToolCall as (args: { call: ToolCall }) => unknown;
    assert.equal(before({ call }), null);
    assert.notEqual(before({ call: call.with({ tool: "bash_outptu" }) }), null);
  });
});

describe("tape recording", () => {
  test("a model call that throws records no message entries for that step", async () => {
    await using fx = await turnFixture({ script: [mockReply.error(400, "bad request")] });
    await assert.rejects(fx.turn("hi"));
    const entries = await fx.entries();
    assert.deepEqual(entries.filter((e) => e.kind === "message"), []);
    assert.deepEqual(entries.filter((e) => e.kind === "system"), []);
    assert.deepEqual(eventData(entries, "run"), []);
  });

  test("assistant text emitted alongside tool calls is streamed but not stored on the tape", async () => {
    await using fx = await turnFixture({
      script: [
        {
          text: "let me look",
          toolCalls: [{ id: "c1", name: "tests_echo", arguments: { text: "a" } }],
        },
        mockReply.text("final"),
      ],
      tools: [echoTool()],
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "let me lookfinal");
    const stored = (await fx.entries()).filter((e) => e.kind === "message").map((e) => e.payload);
    assert.deepEqual(stored, [{ role: "user", content: "go" }, {
      role: "assistant",
      content: "final",
    }]);
  });

  test("a tool step records system, message and tool_call before the tool runs, tool.start/tool.end around it, then tool_result and event run with the call's run_id", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("tests_echo", { text: "a" }, { id: "call_9" }),
        mockReply.text("done"),
      ],
      tools: [echoTool()],
    });
    await fx.turn("go");
    const entries = await fx.entries();
    const first = entries.findIndex((e) => e.kind === "system");
    const step = entries.slice(first, first + 7);
    assert.deepEqual(kinds(step), [
      "system",
      "message",
      "tool_call",
      "event:tool.start",
      "event:tool.end",
      "tool_result",
      "event:run",
    ]);
    assert.deepEqual(step[3]!.payload.data, { call_id: "call_9", tool: "tests.echo" });
    const end = step[4]!.payload.data as Record<string, unknown>;
    assert.deepEqual([end.call_id, end.status], ["call_9", "ok"]);
    const recorded = step.filter((e) => !String(e.payload.name ?? "").startsWith("tool."));
    const runIds = new Set(recorded.map((e) => (e.meta as { run_id?: string }).run_id));
    assert.equal(runIds.size, 1);
    assert.match([...runIds][0]!, /^run-\d{8}T\d{12}Z$/);
  });

  test("BUB_MODEL_TIMEOUT_SECONDS expiring mid-stream raises and fires afterLlmCall once with the error", async () => {
    const results: LlmCallResult[] = [];
    await using fx = await turnFixture({
      script: [{ text: ["a", "b", "c", "d", "e", "f"], delayMs: 400 }],
      env: { BUB_MODEL_TIMEOUT_SECONDS: "1" },
      plugins: [{
        name: "observer",
        afterLlmCall: ({ result }: { result: LlmCallResult }) => void results.push(result),
      }],
    });
    let thrown: unknown;
    await fx.turn("slow").catch((error) => (thrown = error));
    assert.match(String(thrown), /timed out after 1 seconds/);
    assert.equal(results.length, 1);
    assert.equal(results[0]!.error, thrown);
    const steps = eventData(await fx.entries(), "loop.step");
    assert.equal(steps.at(-1)!.status, "error");
  });
});

describe("provider message adaptation", () => {
  test("for gemini a video_url part becomes a file part and input_audio a data:audio base64 file part; other providers are unchanged", () => {
    const messages = [{
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "video_url", video_url: { url: "https://example.test/v.mp4" } },
        { type: "input_audio", input_audio: { data: "QUJD", format: "mp3" } },
        { type: "image_url", image_url: { url: "https://example.test/i.png" } },
      ],
    }];
    const adapted = adaptMessagesForProvider("gemini", messages) as Msg[];
    assert.deepEqual(adapted[0]!.content, [
      { type: "text", text: "look" },
      { type: "file", file: { file_data: "https://example.test/v.mp4" } },
      { type: "file", file: { file_data: "data:audio/mpeg;base64,QUJD" } },
      { type: "image_url", image_url: { url: "https://example.test/i.png" } },
    ]);
    assert.deepEqual(adaptMessagesForProvider("openai", messages), messages);
  });
});
