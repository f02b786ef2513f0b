/**
 * `beforeLlmCall` / `afterLlmCall` as the model runner honours them (kernel spec §13 items 84–88
 * and 99, builtin §16 items 43, 47), driven through `processInbound` against `MockLlmServer`.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import {
  LlmCallDecision,
  type LlmCallRequest,
  type LlmCallResult,
  type ToolCall,
  type ToolCallResult,
} from "../../src/kernel/agent_hooks.ts";
import type { StreamEvent } from "../../src/kernel/stream.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { eventData, kinds, turnFixture } from "./_turn_fixture.ts";

function echoTool(log: string[] = []) {
  return defineTool({
    name: "tests.echo",
    description: "Echo the text",
    parameters: z.object({ text: z.string() }),
    handler: ({ text }) => {
      log.push("tool");
      return `echo:${text}`;
    },
  });
}

describe("beforeLlmCall", () => {
  test("an earlier history message a hook edits in place, after the session's body JSON was cached, reaches the provider as edited (the body follows the request the hook left, never the cache)", async () => {
    let redact = false;
    await using fx = await turnFixture({
      script: Array.from({ length: 12 }, (_, i) => mockReply.text(`answer ${i}`)),
      plugins: [{
        name: "redact",
        beforeLlmCall: ({ request }: { request: LlmCallRequest }) => {
          if (!redact) return;
          for (const message of request.messages) {
            if (message.content === "my secret is 42") message.content = "my secret is [redacted]";
          }
        },
      }],
    });
    // Enough turns that the history's JSON is cached (a long run of kept messages).
    await fx.turn("my secret is 42");
    for (let i = 1; i < 11; i++) await fx.turn(`turn ${i}`);
    redact = true;
    await fx.turn("last");
    const firstUser = fx.server.requests.map((r) =>
      (r.body as { messages: { role: string; content: unknown }[] }).messages
        .find((m) => m.role === "user")?.content
    );
    assert.equal(firstUser.length, 12);
    assert.deepEqual(firstUser.slice(0, 11), Array(11).fill("my secret is 42"));
    assert.equal(firstUser[11], "my secret is [redacted]");
  });

  test("a finish decision skips the provider, emits the text as text and final events, records user message, assistant text and a run event, and fires no afterLlmCall", async () => {
    const after: LlmCallResult[] = [];
    await using fx = await turnFixture({
      script: [mockReply.text("never sent")],
      plugins: [{
        name: "policy",
        beforeLlmCall: () => LlmCallDecision.finish("blocked by policy"),
        afterLlmCall: ({ result }: { result: LlmCallResult }) => void after.push(result),
      }],
    });
    const result = await fx.turn("do something risky");
    assert.equal(result.modelOutput, "blocked by policy");
    assert.equal(fx.server.requests.length, 0);
    assert.deepEqual(fx.turns[0]!.events, [
      { kind: "text", data: { delta: "blocked by policy" } },
      { kind: "final", data: { ok: true, text: "blocked by policy" } },
    ]);
    assert.deepEqual(after, []);
    const entries = await fx.entries();
    const messages = entries.filter((e) => e.kind === "message").map((e) => e.payload);
    assert.deepEqual(messages, [
      { role: "user", content: "do something risky" },
      { role: "assistant", content: "blocked by policy" },
    ]);
    const run = eventData(entries, "run");
    assert.equal(run.length, 1);
    assert.equal(run[0]!.status, "ok");
    assert.equal(run[0]!.model, "openai:gpt-test");
  });

  test("a rewritten model and maxTokens reach the HTTP request body and the tape's run event records the rewritten model", async () => {
    const seen: LlmCallRequest[] = [];
    await using fx = await turnFixture({
      script: [mockReply.text("ok")],
      plugins: [{
        name: "router",
        beforeLlmCall: ({ request }: { request: LlmCallRequest }) => {
          seen.push(request);
          return request.with({ model: "openai:gpt-rewritten", maxTokens: 77 });
        },
      }],
    });
    await fx.turn("hi");
    assert.equal(seen[0]!.model, "openai:gpt-test");
    assert.equal(seen[0]!.maxTokens, 16384);
    const body = fx.bodies()[0]!;
    assert.deepEqual(
      seen[0]!.toolNames,
      (body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name),
    );
    assert.equal(body.model, "gpt-rewritten");
    assert.equal(body.max_tokens, 77);
    const run = eventData(await fx.entries(), "run")[0]!;
    assert.equal(run.model, "openai:gpt-rewritten");
    assert.equal(run.provider, "openai");
  });
});

describe("afterLlmCall", () => {
  test("fires exactly once on success, after the stream is fully consumed and before the step's tools run", async () => {
    const order: string[] = [];
    const results: LlmCallResult[] = [];
    await using fx = await turnFixture({
      script: [
        {
          text: ["let me ", "check"],
          toolCalls: [{ id: "call_e", name: "tests_echo", arguments: ['{"te', 'xt":"a"}'] }],
          usage: { promptTokens: 9, completionTokens: 2 },
        },
        mockReply.text("all ", { chunks: 1 }),
      ],
      tools: [echoTool(order)],
      plugins: [{
        name: "observer",
        afterLlmCall: ({ result }: { result: LlmCallResult }) => {
          order.push("after");
          results.push(result);
        },
      }],
    });
    await fx.turn("go");
    assert.deepEqual(order, ["after", "tool", "after"]);
    const first = results[0]!;
    assert.equal(first.text, "let me check");
    assert.equal(first.error, null);
    assert.deepEqual(first.toolCalls, [{
      id: "call_e",
      type: "function",
      function: { name: "tests_echo", arguments: '{"text":"a"}' },
    }]);
    assert.deepEqual(first.usage, { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 });
    assert.ok(Number.isInteger(first.durationMs) && first.durationMs >= 0);
    assert.deepEqual(results[1]!.toolCalls, []);
  });

  test("fires exactly once on a mid-stream failure (truncated SSE) with result.error being the original exception object that the turn rethrows", async () => {
    const results: LlmCallResult[] = [];
    await using fx = await turnFixture({
      // Three SSE events (role, "part", "ial "), each after a pause, then the connection drops.
      script: [mockReply.truncated({ text: ["part", "ial ", "answer"], delayMs: 10 }, 3)],
      plugins: [{
        name: "observer",
        afterLlmCall: ({ result }: { result: LlmCallResult }) => void results.push(result),
      }],
    });
    let thrown: unknown;
    await fx.turn("hi").catch((error) => (thrown = error));
    assert.ok(thrown instanceof Error, "the turn fails");
    assert.equal(results.length, 1);
    assert.equal(results[0]!.error, thrown);
    assert.equal(results[0]!.text, "partial ");
  });

  test("does not fire when the turn is aborted through processInbound's signal mid-stream; the in-flight step records nothing", async () => {
    const results: LlmCallResult[] = [];
    const controller = new AbortController();
    await using fx = await turnFixture({
      script: [
        () => {
          setTimeout(() => controller.abort(new Error("user pressed stop")), 40);
          return { text: ["a", "b", "c", "d", "e", "f", "g", "h"], delayMs: 50 };
        },
      ],
      plugins: [{
        name: "observer",
        afterLlmCall: ({ result }: { result: LlmCallResult }) => void results.push(result),
      }],
    });
    await assert.rejects(fx.turn("hi", { signal: controller.signal }), /user pressed stop/);
    assert.deepEqual(results, []);
    const entries = await waitForEntries(fx, (k) => k.includes("event:loop.step.start"));
    const k = kinds(entries);
    assert.equal(k.includes("message"), false, "the cancelled call recorded no message");
    assert.equal(k.includes("event:run"), false);
    assert.equal(k.includes("event:loop.step"), false, "cancellation writes no loop.step");
    assert.deepEqual(k.slice(0, 4), [
      "anchor:session/start",
      "event:handoff",
      "event:loop.start",
      "event:loop.step.start",
    ]);
  });

  test("does not fire when the consumer closes the stream early", async () => {
    const results: LlmCallResult[] = [];
    await using fx = await turnFixture({
      script: [{ text: ["one ", "two ", "three ", "four"], delayMs: 20 }],
      plugins: [{
        name: "observer",
        afterLlmCall: ({ result }: { result: LlmCallResult }) => void results.push(result),
      }],
    });
    const state = await fx.bub.buildState(
      { channel: "cli", chatId: "local", content: "x" },
      "cli:local",
    );
    const stream = await fx.builtin.runtime.agent.runStream({
      sessionId: "cli:local",
      prompt: "x",
      state,
    });
    const seen: StreamEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (event.kind === "text") break;
    }
    assert.deepEqual(seen.map((event) => event.kind), ["step_start", "text"]);
    assert.equal(stream.closed, true);
    assert.deepEqual(results, []);
    // The fork closed on early close: what the turn wrote before the call is merged back.
    assert.deepEqual(kinds(await fx.entries()).slice(0, 3), [
      "anchor:session/start",
      "event:handoff",
      "event:loop.start",
    ]);
  });
});

describe("run ids", () => {
  test("every hook payload's runId equals the run_id meta of the step's tape entries, and run ids look like run-YYYYMMDDTHHMMSSffffffZ", async () => {
    const ids: Record<string, string[]> = { before: [], after: [], tool: [], toolAfter: [] };
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_echo", { text: "a" }), mockReply.text("done")],
      tools: [echoTool()],
      plugins: [{
        name: "observer",
        beforeLlmCall: ({ request }: { request: LlmCallRequest }) =>
          void ids.before!.push(request.runId),
        afterLlmCall: ({ result }: { result: LlmCallResult }) => void ids.after!.push(result.runId),
        beforeToolCall: ({ call }: { call: ToolCall }) => void ids.tool!.push(call.runId),
        afterToolCall: ({ result }: { result: ToolCallResult }) =>
          void ids.toolAfter!.push(result.runId),
      }],
    });
    await fx.turn("go");
    assert.equal(ids.before!.length, 2);
    assert.deepEqual(ids.after, ids.before);
    assert.deepEqual(ids.tool, [ids.before![0]]);
    assert.deepEqual(ids.toolAfter, [ids.before![0]]);
    for (const id of ids.before!) assert.match(id, /^run-\d{8}T\d{12}Z$/);
    assert.notEqual(ids.before![0], ids.before![1]);
    const entries = await fx.entries();
    const byRun = (runId: string) =>
      kinds(entries.filter((e) => (e.meta as { run_id?: string }).run_id === runId));
    assert.deepEqual(byRun(ids.before![0]!), [
      "system",
      "message",
      "tool_call",
      "tool_result",
      "event:run",
    ]);
    // The second step sends the same system prompt: it is not recorded again (once per turn).
    assert.deepEqual(byRun(ids.before![1]!), ["message", "event:run"]);
  });
});

async function waitForEntries(
  fx: Awaited<ReturnType<typeof turnFixture>>,
  ready: (kinds: string[]) => boolean,
) {
  // An aborted turn closes its fork without waiting; poll until the merge has landed.
  for (let i = 0; i < 200; i++) {
    const entries = await fx.entries();
    if (ready(kinds(entries))) return entries;
    await new Promise((r) => setTimeout(r, 10));
  }
  return await fx.entries();
}
