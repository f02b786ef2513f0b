/**
 * Bad input from the model — malformed tool-call JSON, an unknown tool, a truncated SSE stream,
 * HTTP 429/500 — gives the specified error or recovery, recorded on the tape, and nothing the
 * turn already recorded is lost (builtin spec §4.6.1, §4.6.3, §3.6, §4.7).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { ModelRunner } from "../../src/agent/model_runner.ts";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { BubError } from "../../src/kernel/errors.ts";
import type { StreamEvent } from "../../src/kernel/stream.ts";
import type { TapeEntry } from "../../src/tape/entry.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { MockLlmServer, type MockReply, mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { eventData, kinds, TEST_API_KEY, turnFixture } from "./_turn_fixture.ts";

async function sessionTape(store: InMemoryTapeStore, home: string): Promise<Tape> {
  const tape = new Tape({ store }).sessionTape("cli:local", home);
  await tape.ensureBootstrapAnchor();
  return tape;
}

function echoTool() {
  return defineTool({
    name: "tests.echo",
    description: "Echo the text",
    parameters: z.object({ text: z.string() }),
    handler: ({ text }) => `echo:${text}`,
  });
}

/** Step 1 is a good tool round; step 2 gets `bad`. */
async function failingSecondStep(bad: MockReply, env: Record<string, string> = {}) {
  const fx = await turnFixture({
    script: [mockReply.toolCall("tests_echo", { text: "kept" }, { id: "call_ok" }), bad],
    tools: [echoTool()],
    env,
  });
  let thrown: unknown = null;
  await fx.turn("go").catch((error) => (thrown = error));
  return { fx, thrown, entries: await fx.entries() };
}

function assertStepOneKept(entries: TapeEntry[]): void {
  const messages = entries.filter((e) => e.kind === "message").map((e) => e.payload);
  assert.deepEqual(
    messages,
    [{ role: "user", content: "go" }],
    "the user prompt of step 1 is kept",
  );
  const results = entries.filter((e) => e.kind === "tool_result").map((e) => e.payload);
  assert.deepEqual(results, [{ results: ["echo:kept"] }], "step 1's tool result is kept");
  assert.equal(eventData(entries, "run").length, 1, "step 1's run event is kept");
}

describe("malformed tool calls", () => {
  for (
    const [label, args] of [
      ["invalid JSON", '{"text": "unterminated'],
      ["a JSON array", "[1]"],
      ["a JSON string", '"text"'],
    ] as const
  ) {
    test(`tool-call arguments that are ${label} fail the step with invalid_input "Expected a function tool call with JSON object arguments." recorded as loop.step error, keeping earlier steps`, async () => {
      const { fx, thrown, entries } = await failingSecondStep({
        toolCalls: [{ id: "call_bad", name: "tests_echo", arguments: args }],
      });
      await using _ = fx;
      assert.ok(BubError.isInstance(thrown), String(thrown));
      assert.equal((thrown as BubError).kind, "invalid_input");
      assert.equal(
        (thrown as BubError).message,
        "Expected a function tool call with JSON object arguments.",
      );
      const steps = eventData(entries, "loop.step");
      assert.deepEqual(steps.map((s) => s.status), ["continue", "error"]);
      assert.equal(steps[1]!.error, "Expected a function tool call with JSON object arguments.");
      assert.equal(
        entries.filter((e) => e.kind === "tool_call").length,
        1,
        "the bad call is not recorded",
      );
      assertStepOneKept(entries);
    });
  }

  test("empty tool-call arguments count as an empty object", async () => {
    const noArgs = defineTool({ name: "tests.ping", handler: () => "pong" });
    await using fx = await turnFixture({
      script: [
        { toolCalls: [{ id: "c", name: "tests_ping", arguments: "" }] },
        mockReply.text("done"),
      ],
      tools: [noArgs],
    });
    await fx.turn("go");
    const result = (await fx.entries()).find((e) => e.kind === "tool_result")!;
    assert.deepEqual(result.payload, { results: ["pong"] });
  });
});

describe("unknown tools", () => {
  test("a call to a tool that does not exist is answered with guidance and the turn goes on to a final answer", async () => {
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_ecoh", { text: "x" }), mockReply.text("recovered")],
      tools: [echoTool()],
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "recovered");
    const entries = await fx.entries();
    const results = entries.find((e) => e.kind === "tool_result")!.payload as { results: string[] };
    assert.equal(
      results.results[0],
      "Tool `tests_ecoh` does not exist. Did you mean one of the following?\n- tests_echo",
    );
    assert.deepEqual(eventData(entries, "loop.step").map((s) => s.status), ["continue", "ok"]);
  });

  test("in a restricted run a registry tool outside the allowed set gets no guidance: the placeholder's Unknown tool name error is the result", async () => {
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_echo", { text: "x" }), mockReply.text("done")],
      tools: [echoTool(), defineTool({ name: "tests.other", handler: () => "o" })],
    });
    const state = await fx.bub.buildState(
      { channel: "cli", chatId: "local", content: "x" },
      "cli:local",
    );
    const stream = await fx.builtin.runtime.agent.runStream({
      sessionId: "cli:local",
      prompt: "x",
      state,
      allowedTools: ["tests.other"],
    });
    for await (const _event of stream) { /* consume */ }
    const entries = await fx.entries();
    const results = entries.find((e) => e.kind === "tool_result")!.payload as {
      results: unknown[];
    };
    assert.deepEqual(results.results, [{
      kind: "tool",
      message: "Unknown tool name: tests_echo.",
    }]);
  });
});

describe("nameless tool calls", () => {
  for (
    const [protocol, model] of [
      ["chat completions", "openai:gpt-test"],
      ["Responses", "openai-responses:gpt-test"],
      ["Anthropic", "anthropic:claude-test"],
    ] as const
  ) {
    test(`a ${protocol} tool call without a name is a tool error the model sees ("Tool call has no name"), and the turn goes on`, async () => {
      await using fx = await turnFixture({
        script: [
          { toolCalls: [{ id: "call_blank", name: "", arguments: { text: "x" } }] },
          mockReply.text("recovered"),
        ],
        tools: [echoTool()],
        env: { BUB_MODEL: model },
      });
      const result = await fx.turn("go");
      assert.equal(result.modelOutput, "recovered");
      const entries = await fx.entries();
      const results = entries.find((e) => e.kind === "tool_result")!.payload as {
        results: unknown[];
      };
      assert.equal(results.results.length, 1);
      assert.match(JSON.stringify(results.results[0]), /Tool call has no name/);
      assert.deepEqual(eventData(entries, "loop.step").map((s) => s.status), ["continue", "ok"]);
      const second = JSON.stringify(fx.bodies()[1]);
      assert.match(second, /Tool call has no name/, "the model sees the error");
    });
  }

  test("without hooks a nameless call yields the tool error dict Tool call has no name", async () => {
    await using server = await MockLlmServer.start({
      script: [{ toolCalls: [{ name: "", arguments: {} }] }, mockReply.text("done")],
    });
    const runner = new ModelRunner(
      new ProviderModelClient({ apiKey: TEST_API_KEY, apiBase: server.url }),
      null,
      { model: "openai:gpt-test" },
    );
    const events: StreamEvent[] = [];
    for await (
      const event of runner.run({
        tape: await sessionTape(new InMemoryTapeStore(), "/tmp/ws"),
        model: "openai:gpt-test",
        tools: [echoTool().toModelTool()],
        systemPrompt: "",
        prompt: "go",
        state: {},
      })
    ) events.push(event);
    const toolResult = events.find((e) => e.kind === "tool_result")!;
    const [error] = toolResult.data.tool_results as { kind: string; message: string }[];
    assert.equal(error!.kind, "tool");
    assert.match(error!.message, /^Tool call has no name/);
  });
});

describe("broken streams and HTTP errors", () => {
  test("a truncated SSE stream fails the step with a provider error recorded as loop.step error, keeping earlier steps", async () => {
    const { fx, thrown, entries } = await failingSecondStep(
      mockReply.truncated({ text: ["half ", "an ", "answer"], delayMs: 5 }, 2),
    );
    await using _ = fx;
    assert.ok(BubError.isInstance(thrown), String(thrown));
    assert.equal((thrown as BubError).kind, "provider");
    const steps = eventData(entries, "loop.step");
    assert.deepEqual(steps.map((s) => s.status), ["continue", "error"]);
    assert.equal(steps[1]!.error, (thrown as BubError).message);
    assert.equal(
      kinds(entries).filter((k) => k === "message").length,
      1,
      "no partial answer stored",
    );
    assertStepOneKept(entries);
  });

  for (const status of [429, 500]) {
    test(`HTTP ${status} fails the step with a temporary BubError carrying the provider message and status, recorded as loop.step error, keeping earlier steps`, async () => {
      const { fx, thrown, entries } = await failingSecondStep(
        mockReply.error(status, `provider says ${status}`, { headers: { "retry-after": "0" } }),
      );
      await using _ = fx;
      assert.ok(BubError.isInstance(thrown), String(thrown));
      assert.equal((thrown as BubError).kind, "temporary");
      assert.match(
        (thrown as BubError).message,
        new RegExp(`HTTP ${status}.*provider says ${status}`),
      );
      assert.equal((thrown as BubError).details?.status_code, status);
      const steps = eventData(entries, "loop.step");
      assert.deepEqual(steps.map((s) => s.status), ["continue", "error"]);
      assert.match(String(steps[1]!.error), new RegExp(`provider says ${status}`));
      assertStepOneKept(entries);
      assert.equal(fx.server.requests.length, 2, "no hidden retry");
    });
  }

  test("a failed turn does not lose earlier turns of the session, and the next turn sees them", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.text("first answer"),
        mockReply.error(500, "boom"),
        mockReply.text("third"),
      ],
    });
    await fx.turn("first");
    await assert.rejects(fx.turn("second"));
    await fx.turn("third");
    const messages = (await fx.entries()).filter((e) => e.kind === "message").map((e) =>
      (e.payload as { content: unknown }).content
    );
    assert.deepEqual(messages, ["first", "first answer", "third", "third"]);
    const sent = (fx.bodies()[2]!.messages as Array<{ content: unknown }>).slice(1).map((m) =>
      m.content
    );
    assert.deepEqual(sent, ["first", "first answer", "third"]);
  });
});
