/**
 * `beforeToolCall` / `afterToolCall` as the agent's tool executor honours them (kernel spec §13
 * items 89–97), driven through `processInbound` against `MockLlmServer`.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import {
  type ToolCall,
  ToolCallDecision,
  type ToolCallResult,
} from "../../src/kernel/agent_hooks.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { kinds, turnFixture } from "./_turn_fixture.ts";

type Msg = { role: string; content?: unknown; tool_call_id?: string };

function echoTool(calls: unknown[] = []) {
  return defineTool({
    name: "tests.echo",
    description: "Echo the text",
    parameters: z.object({ text: z.string() }),
    handler: (args) => {
      calls.push(args);
      return `echo:${args.text}`;
    },
  });
}

/** What the model saw as the tool's answer (the tool message of the second request). */
function toolMessage(bodies: Record<string, unknown>[]): Msg {
  return (bodies[1]!.messages as Msg[]).findLast((m) => m.role === "tool")!;
}

function echoScript(args: Record<string, unknown> = { text: "hi" }) {
  return [mockReply.toolCall("tests_echo", args), mockReply.text("done")];
}

async function recordedResults(fx: Awaited<ReturnType<typeof turnFixture>>): Promise<unknown[]> {
  const entry = (await fx.entries()).find((e) => e.kind === "tool_result")!;
  return (entry.payload as { results: unknown[] }).results;
}

describe("beforeToolCall", () => {
  test("proceed(arguments) replaces the call's arguments for later implementations and for the tool handler", async () => {
    const handled: unknown[] = [];
    const laterSaw: unknown[] = [];
    await using fx = await turnFixture({
      script: echoScript({ text: "original" }),
      tools: [echoTool(handled)],
      plugins: [
        {
          name: "later",
          beforeToolCall: ({ call }: { call: ToolCall }) => void laterSaw.push(call.arguments),
        },
        {
          name: "rewriter",
          beforeToolCall: () => ToolCallDecision.proceed({ text: "rewritten" }),
        },
      ],
    });
    await fx.turn("go");
    assert.deepEqual(laterSaw, [{ text: "rewritten" }]);
    assert.deepEqual(handled, [{ text: "rewritten" }]);
    assert.deepEqual(await recordedResults(fx), ["echo:rewritten"]);
  });

  test("deny(message) stops the chain, skips the handler, surfaces a tool BubError with the message and fires afterToolCall with it", async () => {
    const handled: unknown[] = [];
    const lowerCalled: string[] = [];
    const after: ToolCallResult[] = [];
    await using fx = await turnFixture({
      script: echoScript(),
      tools: [echoTool(handled)],
      plugins: [
        { name: "lower", beforeToolCall: () => void lowerCalled.push("lower") },
        {
          name: "policy",
          beforeToolCall: () => ToolCallDecision.deny("no"),
          afterToolCall: ({ result }: { result: ToolCallResult }) => void after.push(result),
        },
      ],
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "done");
    assert.deepEqual(handled, []);
    assert.deepEqual(lowerCalled, []);
    assert.equal(after.length, 1);
    assert.ok(BubError.isInstance(after[0]!.error));
    assert.equal((after[0]!.error as BubError).kind, "tool");
    assert.equal((after[0]!.error as BubError).message, "no");
    assert.equal(after[0]!.result, null);
    assert.deepEqual(await recordedResults(fx), [{ kind: "tool", message: "no" }]);
    assert.deepEqual(JSON.parse(String(toolMessage(fx.bodies()).content)), {
      kind: "tool",
      message: "no",
    });
  });

  test("deny without a message uses \"Tool '<name>' call denied by policy hook.\"", async () => {
    await using fx = await turnFixture({
      script: echoScript(),
      tools: [echoTool()],
      plugins: [{ name: "policy", beforeToolCall: () => ToolCallDecision.deny() }],
    });
    await fx.turn("go");
    assert.deepEqual(await recordedResults(fx), [{
      kind: "tool",
      message: "Tool 'tests_echo' call denied by policy hook.",
    }]);
  });

  test("replace(result) skips the handler and the model sees the replacement as adjusted by afterToolCall", async () => {
    const handled: unknown[] = [];
    await using fx = await turnFixture({
      script: echoScript(),
      tools: [echoTool(handled)],
      plugins: [{
        name: "cache",
        beforeToolCall: () => ToolCallDecision.replace("cached value"),
        afterToolCall: ({ result }: { result: ToolCallResult }) => {
          result.result = `${result.result} (adjusted)`;
        },
      }],
    });
    await fx.turn("go");
    assert.deepEqual(handled, []);
    assert.deepEqual(await recordedResults(fx), ["cached value (adjusted)"]);
    assert.equal(toolMessage(fx.bodies()).content, "cached value (adjusted)");
  });

  test("a throwing beforeToolCall never vetoes: the tool still runs and hook.agent_hook_failed is logged", async () => {
    await using logs = await captureLogs();
    const handled: unknown[] = [];
    await using fx = await turnFixture({
      script: echoScript(),
      tools: [echoTool(handled)],
      plugins: [{
        name: "broken",
        beforeToolCall: () => {
          throw new Error("policy crashed");
        },
      }],
    });
    await fx.turn("go");
    assert.deepEqual(handled, [{ text: "hi" }]);
    assert.deepEqual(await recordedResults(fx), ["echo:hi"]);
    assert.ok(
      logs.warnings().some((m) => m.includes("hook.agent_hook_failed") && m.includes("broken")),
      logs.warnings().join("\n"),
    );
  });
});

describe("afterToolCall", () => {
  test("fires for success and for failure; on failure result.error is the normalized BubError with kind and details intact", async () => {
    const after: ToolCallResult[] = [];
    const failing = defineTool({
      name: "tests.fail",
      handler: () => {
        throw new Error("boom");
      },
    });
    await using fx = await turnFixture({
      script: [
        {
          toolCalls: [
            { id: "c1", name: "tests_echo", arguments: { text: "ok" } },
            { id: "c2", name: "tests_fail", arguments: {} },
            { id: "c3", name: "tests_echo", arguments: { text: 42 } },
          ],
        },
        mockReply.text("done"),
      ],
      tools: [echoTool(), failing],
      plugins: [{
        name: "observer",
        afterToolCall: ({ result }: { result: ToolCallResult }) => void after.push(result),
      }],
    });
    await fx.turn("go");
    assert.equal(after.length, 3);
    // Invocations run concurrently: find each outcome by tool and arguments.
    const ok = after.find((r) => r.tool === "tests_echo" && r.arguments.text === "ok")!;
    assert.equal(ok.error, null);
    assert.equal(ok.result, "echo:ok");
    const failure = after.find((r) => r.tool === "tests_fail")!.error as BubError;
    assert.ok(BubError.isInstance(failure));
    assert.equal(failure.kind, "tool");
    assert.equal(failure.message, "Tool 'tests_fail' execution failed.");
    assert.match(String(failure.details?.error), /boom/);
    const invalid = after.find((r) => r.tool === "tests_echo" && r.arguments.text === 42)!
      .error as BubError;
    assert.equal(invalid.kind, "invalid_input");
    assert.equal(invalid.message, "Tool 'tests_echo' argument validation failed.");
    assert.ok(Array.isArray(invalid.details?.errors) && invalid.details.errors.length > 0);
    const results = await recordedResults(fx) as Array<Record<string, unknown> | string>;
    assert.equal(results[0], "echo:ok");
    assert.equal(
      (results[1] as Record<string, unknown>).message,
      "Tool 'tests_fail' execution failed.",
    );
    assert.equal((results[2] as Record<string, unknown>).kind, "invalid_input");
  });

  test("a result.result assigned by one afterToolCall is seen by later ones and becomes the model-facing value", async () => {
    const laterSaw: unknown[] = [];
    await using fx = await turnFixture({
      script: echoScript(),
      tools: [echoTool()],
      plugins: [
        {
          name: "later",
          afterToolCall: ({ result }: { result: ToolCallResult }) =>
            void laterSaw.push(result.result),
        },
        {
          name: "redactor",
          afterToolCall: ({ result }: { result: ToolCallResult }) => {
            result.result = "[redacted]";
          },
        },
      ],
    });
    await fx.turn("go");
    assert.deepEqual(laterSaw, ["[redacted]"]);
    assert.deepEqual(await recordedResults(fx), ["[redacted]"]);
    assert.equal(toolMessage(fx.bodies()).content, "[redacted]");
  });

  test("on a failed tool an afterToolCall that sets result.result replaces the model-facing payload while result.error stays the BubError", async () => {
    const laterSaw: Array<{ error: unknown; result: unknown }> = [];
    const failing = defineTool({
      name: "tests.fail",
      handler: () => {
        throw new Error("boom");
      },
    });
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_fail", {}), mockReply.text("done")],
      tools: [failing],
      plugins: [
        {
          name: "later",
          afterToolCall: ({ result }: { result: ToolCallResult }) =>
            void laterSaw.push({ error: result.error, result: result.result }),
        },
        {
          name: "friendly",
          afterToolCall: ({ result }: { result: ToolCallResult }) => {
            if (result.error) result.result = "the tool failed; try something else";
          },
        },
      ],
    });
    await fx.turn("go");
    assert.equal(laterSaw.length, 1);
    assert.ok(BubError.isInstance(laterSaw[0]!.error));
    assert.equal(laterSaw[0]!.result, "the tool failed; try something else");
    assert.deepEqual(await recordedResults(fx), ["the tool failed; try something else"]);
    assert.equal(toolMessage(fx.bodies()).content, "the tool failed; try something else");
  });

  test("a tool invocation cancelled through processInbound's signal fires no afterToolCall and records no tool_result", async () => {
    const after: ToolCallResult[] = [];
    const controller = new AbortController();
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const waiting = defineTool({
      name: "tests.wait",
      context: true,
      handler: (_args, context) =>
        new Promise((_resolve, reject) => {
          started();
          context.signal?.addEventListener("abort", () => reject(context.signal!.reason), {
            once: true,
          });
        }),
    });
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_wait", {}), mockReply.text("never")],
      tools: [waiting],
      plugins: [{
        name: "observer",
        afterToolCall: ({ result }: { result: ToolCallResult }) => void after.push(result),
      }],
    });
    const turn = fx.turn("go", { signal: controller.signal });
    await toolStarted;
    controller.abort(new Error("stop now"));
    await assert.rejects(turn, /stop now/);
    assert.deepEqual(after, []);
    assert.equal(fx.server.requests.length, 1);
    let entries = await fx.entries();
    for (let i = 0; i < 100 && !kinds(entries).includes("event:loop.step.start"); i++) {
      await new Promise((r) => setTimeout(r, 10));
      entries = await fx.entries();
    }
    assert.equal(kinds(entries).includes("tool_result"), false);
    assert.equal(kinds(entries).includes("event:loop.step"), false);
  });
});
