import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  LlmCallDecision,
  LlmCallRequest,
  LlmCallResult,
  ToolCall,
  ToolCallDecision,
  ToolCallResult,
} from "../../src/kernel/agent_hooks.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

const REQUEST = new LlmCallRequest({
  runId: "run-1",
  model: "openai:gpt",
  messages: [{ role: "user", content: "hi" }],
});

describe("AgentHooks.beforeLlmCall", () => {
  test("beforeLlmCall chains: each implementation sees the request returned by the previous one (LIFO)", async () => {
    using fx = kernelFixture();
    const seen: string[] = [];
    const state = { turn: 1 };
    let stateSeen: unknown = null;
    fx.framework.register(definePlugin({
      name: "low",
      beforeLlmCall: (
        { request, state: s },
      ) => (seen.push(`low:${request.model}`), stateSeen = s, request.with({ maxTokens: 10 })),
    }));
    fx.framework.register(definePlugin({
      name: "high",
      // deno-lint-ignore require-await
      beforeLlmCall: async (
        { request },
      ) => (seen.push(`high:${request.model}`), request.with({ model: "anthropic:claude" })),
    }));
    const [request, decision] = await fx.framework.getAgentHooks().beforeLlmCall(REQUEST, state);
    assert.deepEqual(seen, ["high:openai:gpt", "low:anthropic:claude"]);
    assert.equal(request.model, "anthropic:claude");
    assert.equal(request.maxTokens, 10);
    assert.equal(request.runId, "run-1");
    assert.equal(decision, null);
    assert.equal(stateSeen, state);
  });

  test("LlmCallDecision.finish(text) stops the chain; lower implementations are not called", async () => {
    using fx = kernelFixture();
    let lowerCalled = false;
    fx.framework.register(
      definePlugin({ name: "low", beforeLlmCall: () => void (lowerCalled = true) }),
    );
    fx.framework.register(
      definePlugin({ name: "finisher", beforeLlmCall: () => LlmCallDecision.finish("canned") }),
    );
    fx.framework.register(
      definePlugin({
        name: "high",
        beforeLlmCall: ({ request }) => request.with({ model: "x:y" }),
      }),
    );
    const [request, decision] = await fx.framework.getAgentHooks().beforeLlmCall(REQUEST, {});
    assert.ok(decision instanceof LlmCallDecision);
    assert.deepEqual([decision.action, decision.text], ["finish", "canned"]);
    assert.equal(request.model, "x:y", "the request as rewritten so far is returned");
    assert.equal(lowerCalled, false);
  });

  test("a raising beforeLlmCall implementation is logged as hook.agent_hook_failed and skipped; the request is unchanged", async () => {
    await using logs = await captureLogs();
    using fx = kernelFixture();
    let lowSaw: LlmCallRequest | null = null;
    fx.framework.register(
      definePlugin({ name: "low", beforeLlmCall: ({ request }) => void (lowSaw = request) }),
    );
    fx.framework.register(definePlugin({
      name: "crashy",
      beforeLlmCall: () => {
        throw new Error("policy crashed");
      },
    }));
    const [request, decision] = await fx.framework.getAgentHooks().beforeLlmCall(REQUEST, {});
    assert.equal(request, REQUEST);
    assert.equal(lowSaw, REQUEST, "the chain continues after the failure");
    assert.equal(decision, null);
    const [warning] = logs.warnings();
    assert.match(
      warning ?? "",
      /^hook\.agent_hook_failed hook=beforeLlmCall adapter=crashy\b.*policy crashed/,
    );
  });

  test("a wrong-typed return logs hook.agent_hook_bad_return and leaves the request unchanged", async () => {
    await using logs = await captureLogs();
    using fx = kernelFixture();
    fx.framework.register({ name: "confused", beforeLlmCall: () => ({ model: "plain:object" }) });
    const [request, decision] = await fx.framework.getAgentHooks().beforeLlmCall(REQUEST, {});
    assert.equal(request, REQUEST);
    assert.equal(decision, null);
    assert.deepEqual(logs.warnings(), [
      "hook.agent_hook_bad_return hook=beforeLlmCall adapter=confused got=an object of type Object expected=LlmCallRequest | LlmCallDecision | None",
    ]);
  });

  test("a cancellation raised by an agent hook is not swallowed", async () => {
    using fx = kernelFixture();
    const controller = new AbortController();
    controller.abort();
    fx.framework.register({
      name: "cancelled",
      beforeLlmCall: () => Promise.reject(controller.signal.reason),
    });
    await assert.rejects(fx.framework.getAgentHooks().beforeLlmCall(REQUEST, {}), {
      name: "AbortError",
    });
  });
});

describe("AgentHooks tool and after hooks", () => {
  test("beforeToolCall folds proceed arguments and stops at replace or deny", async () => {
    using fx = kernelFixture();
    const seen: unknown[] = [];
    fx.framework.register(
      definePlugin({ name: "low", beforeToolCall: ({ call }) => void seen.push(call.arguments) }),
    );
    fx.framework.register(
      definePlugin({ name: "deny", beforeToolCall: () => ToolCallDecision.deny("no") }),
    );
    fx.framework.register(definePlugin({
      name: "rewrite",
      beforeToolCall: ({ call }) => ToolCallDecision.proceed({ ...call.arguments, cmd: "ls -la" }),
    }));
    const call = new ToolCall({ runId: "r", tool: "bash", arguments: { cmd: "ls" } });
    const [final, decision] = await fx.framework.getAgentHooks().beforeToolCall(call, {});
    assert.deepEqual(final.arguments, { cmd: "ls -la" });
    assert.deepEqual([decision.action, decision.message], ["deny", "no"]);
    assert.deepEqual(seen, []);
    assert.deepEqual(call.arguments, { cmd: "ls" }, "the original call is not mutated");
  });

  test("afterToolCall implementations share one mutable result and afterLlmCall observers are isolated", async () => {
    await using _logs = await captureLogs();
    using fx = kernelFixture();
    const seen: unknown[] = [];
    fx.framework.register(
      definePlugin({ name: "low", afterToolCall: ({ result }) => void seen.push(result.result) }),
    );
    fx.framework.register(
      definePlugin({
        name: "high",
        afterToolCall: ({ result }) => void (result.result = "rewritten"),
      }),
    );
    fx.framework.register(definePlugin({
      name: "observer",
      afterLlmCall: ({ result }) => void seen.push(result.text),
    }));
    fx.framework.register({
      name: "broken",
      afterLlmCall: () => Promise.reject(new Error("observer down")),
    });
    const hooks = fx.framework.getAgentHooks();
    const call = new ToolCall({ tool: "t", arguments: {} });
    const result = new ToolCallResult({ tool: "t", arguments: {}, result: "raw" });
    await hooks.afterToolCall(call, result, {});
    await hooks.afterLlmCall(REQUEST, new LlmCallResult({ runId: "run-1", text: "answer" }), {});
    assert.deepEqual(seen, ["rewritten", "answer"]);
    assert.equal(result.result, "rewritten");
  });
});
