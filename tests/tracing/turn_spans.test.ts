/**
 * The spans of a turn, recorded by the OpenTelemetry SDK into an in-memory exporter: a real
 * builtin framework against MockLlmServer, with a tool call, a failing tool and a failing model.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { z } from "zod";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { tracingEnabled } from "../../src/tracing/tracer.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

const echo = defineTool({
  name: "tests.echo",
  description: "Echo the text",
  parameters: z.object({ text: z.string() }),
  handler: (args) => `echo:${args.text}`,
});
const broken = defineTool({
  name: "tests.broken",
  description: "Always fails",
  parameters: z.object({}),
  handler: () => {
    throw new Error("boom");
  },
});

const CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

before(() => {
  trace.disable();
  assert.equal(tracingEnabled(), false, "no tracer provider registered");
  trace.setGlobalTracerProvider(provider);
  assert.equal(tracingEnabled(), true, "the provider is seen once registered");
});
after(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
  delete process.env[CAPTURE];
});
beforeEach(() => {
  exporter.reset();
  delete process.env[CAPTURE];
});

function byName(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

function one(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = byName(spans, name);
  assert.equal(found.length, 1, `one span named ${name}, got ${spans.map((s) => s.name)}`);
  return found[0]!;
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

const HOOKS = [
  "hook resolveSession",
  "hook loadState",
  "hook buildPrompt",
  "hook runModelStream",
  "hook saveState",
  "hook renderOutbound",
  "hook dispatchOutbound",
];

describe("turn spans", () => {
  test("a turn with a tool call: invoke_agent > hook stages > chat + execute_tool, GenAI attributes", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("tests_echo", { text: "hi" }, { id: "call_echo_1" }),
        mockReply.text("done", { usage: { promptTokens: 21, completionTokens: 4 } }),
      ],
      tools: [echo],
      env: { BUB_MAX_TOKENS: "512" },
    });
    const result = await fx.turn("say hi");
    assert.equal(result.modelOutput, "done");
    const spans = exporter.getFinishedSpans();

    const turn = one(spans, "invoke_agent bub");
    assert.equal(parentOf(turn), undefined);
    assert.equal(turn.attributes["gen_ai.operation.name"], "invoke_agent");
    assert.equal(turn.attributes["gen_ai.agent.name"], "bub");
    assert.equal(turn.attributes["gen_ai.conversation.id"], "cli:local");
    assert.equal(turn.attributes["bub.channel"], "cli");
    assert.equal(turn.status.code, SpanStatusCode.UNSET);
    for (const span of spans) assert.equal(span.spanContext().traceId, turn.spanContext().traceId);

    const hooks = spans.filter((span) => span.name.startsWith("hook "));
    assert.deepEqual(
      [...hooks].sort((a, b) => hrMs(a.startTime) - hrMs(b.startTime)).map((s) => s.name),
      HOOKS,
    );
    for (const hook of hooks) {
      assert.equal(parentOf(hook), turn.spanContext().spanId, hook.name);
      assert.equal(hook.attributes["bub.hook.name"], hook.name.slice("hook ".length));
    }

    const model = one(spans, "hook runModelStream");
    const chats = byName(spans, "chat gpt-test");
    assert.equal(chats.length, 2);
    for (const chat of chats) {
      assert.equal(parentOf(chat), model.spanContext().spanId);
      assert.equal(chat.kind, 2 /* CLIENT */);
      assert.equal(chat.attributes["gen_ai.operation.name"], "chat");
      assert.equal(chat.attributes["gen_ai.provider.name"], "openai");
      assert.equal(chat.attributes["gen_ai.request.model"], "gpt-test");
      assert.equal(chat.attributes["gen_ai.response.model"], "gpt-test");
      assert.equal(chat.attributes["gen_ai.request.max_tokens"], 512);
      assert.equal(chat.attributes["gen_ai.conversation.id"], "cli:local");
      assert.equal(chat.attributes["gen_ai.input.messages"], undefined, "no content by default");
      assert.equal(chat.attributes["gen_ai.output.messages"], undefined);
    }
    const [first, second] = [...chats].sort((a, b) => hrMs(a.startTime) - hrMs(b.startTime));
    assert.deepEqual(first!.attributes["gen_ai.response.finish_reasons"], ["tool_calls"]);
    assert.equal(first!.attributes["gen_ai.usage.input_tokens"], 10);
    assert.equal(first!.attributes["gen_ai.usage.output_tokens"], 5);
    assert.deepEqual(second!.attributes["gen_ai.response.finish_reasons"], ["stop"]);
    assert.equal(second!.attributes["gen_ai.usage.input_tokens"], 21);
    assert.equal(second!.attributes["gen_ai.usage.output_tokens"], 4);

    const tool = one(spans, "execute_tool tests_echo");
    assert.equal(parentOf(tool), model.spanContext().spanId);
    assert.equal(tool.attributes["gen_ai.operation.name"], "execute_tool");
    assert.equal(tool.attributes["gen_ai.tool.name"], "tests_echo");
    assert.equal(tool.attributes["gen_ai.tool.call.id"], "call_echo_1");
    assert.equal(tool.attributes["gen_ai.conversation.id"], "cli:local");
    assert.equal(tool.attributes["gen_ai.tool.call.arguments"], undefined);
    assert.equal(tool.status.code, SpanStatusCode.UNSET);
    assert.ok(hrMs(first!.endTime) <= hrMs(tool.startTime), "the tool runs after its model call");
    assert.ok(hrMs(tool.endTime) <= hrMs(second!.startTime));
  });

  test("message contents are recorded only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true", async () => {
    process.env[CAPTURE] = "true";
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_echo", { text: "hi" }), mockReply.text("done")],
      tools: [echo],
    });
    await fx.turn("say hi");
    const spans = exporter.getFinishedSpans();
    const chats = [...byName(spans, "chat gpt-test")]
      .sort((a, b) => hrMs(a.startTime) - hrMs(b.startTime));
    const input = JSON.parse(String(chats[0]!.attributes["gen_ai.input.messages"]));
    assert.deepEqual(input.at(-1), { role: "user", parts: [{ type: "text", content: "say hi" }] });
    assert.match(String(chats[0]!.attributes["gen_ai.system_instructions"]), /"type":"text"/);
    const output = JSON.parse(String(chats[0]!.attributes["gen_ai.output.messages"]));
    assert.equal(output[0].role, "assistant");
    assert.equal(output[0].parts[0].type, "tool_call");
    assert.equal(output[0].parts[0].name, "tests_echo");
    assert.deepEqual(output[0].parts[0].arguments, { text: "hi" });
    const last = JSON.parse(String(chats[1]!.attributes["gen_ai.output.messages"]));
    assert.deepEqual(last[0].parts, [{ type: "text", content: "done" }]);
    const tool = one(spans, "execute_tool tests_echo");
    assert.equal(tool.attributes["gen_ai.tool.call.arguments"], '{"text":"hi"}');
    assert.equal(tool.attributes["gen_ai.tool.call.result"], "echo:hi");
  });

  test("a failing tool sets its span's status; the turn still succeeds", async () => {
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_broken", {}), mockReply.text("sorry")],
      tools: [broken],
    });
    await fx.turn("break it");
    const spans = exporter.getFinishedSpans();
    const tool = one(spans, "execute_tool tests_broken");
    assert.equal(tool.status.code, SpanStatusCode.ERROR);
    assert.match(tool.status.message ?? "", /Tool 'tests_broken' execution failed/);
    assert.equal(tool.attributes["error.type"], "tool");
    assert.equal(one(spans, "invoke_agent bub").status.code, SpanStatusCode.UNSET);
  });

  test("a failing model call sets the status of chat, its hook stage and the turn", async () => {
    await using fx = await turnFixture({
      script: [mockReply.error(400, "bad request from the mock")],
    });
    await assert.rejects(fx.turn("fail", { stream: false }));
    const spans = exporter.getFinishedSpans();
    const chat = one(spans, "chat gpt-test");
    assert.equal(chat.status.code, SpanStatusCode.ERROR);
    assert.match(chat.status.message ?? "", /bad request from the mock/);
    assert.equal(chat.attributes["error.type"], "provider");
    assert.equal(chat.events.some((event) => event.name === "exception"), true);
    const stage = one(spans, "hook runModel");
    assert.equal(stage.status.code, SpanStatusCode.ERROR);
    assert.equal(one(spans, "hook saveState").status.code, SpanStatusCode.UNSET);
    const turn = one(spans, "invoke_agent bub");
    assert.equal(turn.status.code, SpanStatusCode.ERROR);
    assert.equal(turn.attributes["error.type"], "provider");
  });

  test("a cancelled turn ends its spans with error.type cancelled", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("slow answer", { chunks: 6, delayMs: 300 })],
    });
    const controller = new AbortController();
    const turn = fx.turn("wait", { signal: controller.signal });
    setTimeout(() => controller.abort(new DOMException("stop", "AbortError")), 400);
    await assert.rejects(turn);
    const spans = exporter.getFinishedSpans();
    const chat = one(spans, "chat gpt-test");
    assert.equal(chat.attributes["error.type"], "cancelled");
    assert.equal(chat.status.code, SpanStatusCode.ERROR);
    const root = one(spans, "invoke_agent bub");
    assert.equal(root.attributes["error.type"], "cancelled");
    assert.equal(root.events.length, 0, "a cancellation records no exception");
  });
});

function hrMs(time: [number, number]): number {
  return time[0] * 1e3 + time[1] / 1e6;
}
