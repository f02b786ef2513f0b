import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ToolCall, ToolCallDecision } from "../../src/kernel/agent_hooks.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { hookimpl } from "../../src/kernel/plugin.ts";
import type { TurnState } from "../../src/kernel/turn.ts";
import { ToolExecutor } from "../../src/tools/executor.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { type After, agentHooksWith, boom, context, echoTool } from "./_fixtures.ts";

describe("ToolExecutor with AgentHooks", () => {
  test("the hook state gets _runtime_tape; payloads carry the run id and the name as invoked", async () => {
    const calls: Array<{ tool: string; runId: string; tape: unknown }> = [];
    const hooks = agentHooksWith({
      name: "spy",
      beforeToolCall: ({ call, state }: { call: ToolCall; state: TurnState }) =>
        void calls.push({ tool: call.tool, runId: call.runId, tape: state._runtime_tape }),
    });
    const ctx = context({}, "run-42");
    await new ToolExecutor(hooks).execute([{
      tool: echoTool("fs.read"),
      name: "fs_read",
      arguments: {},
    }], {
      context: ctx,
    });
    await new ToolExecutor(hooks).execute([{ tool: echoTool(), arguments: {} }]);
    assert.deepEqual(calls, [
      { tool: "fs_read", runId: "run-42", tape: ctx.tape },
      { tool: "echo", runId: "", tape: undefined },
    ]);
    assert.equal(ctx.state._runtime_tape, ctx.tape);
  });

  test("kernel 89: proceed(arguments) replaces the arguments for later implementations and the handler", async () => {
    const seenByLower: unknown[] = [];
    const afters: After[] = [];
    const hooks = agentHooksWith(
      {
        name: "lower",
        beforeToolCall: ({ call }: { call: ToolCall }) => void seenByLower.push(call.arguments),
        afterToolCall: (args: After) => void afters.push(args),
      },
      { name: "higher", beforeToolCall: () => ToolCallDecision.proceed({ text: "rewritten" }) },
    );
    const { toolResults } = await new ToolExecutor(hooks).execute([{
      tool: echoTool(),
      arguments: { text: "original" },
    }]);
    assert.deepEqual(seenByLower, [{ text: "rewritten" }]);
    assert.deepEqual(toolResults, [{ text: "rewritten" }]);
    assert.deepEqual(afters[0]!.result.arguments, { text: "rewritten" });
    assert.deepEqual(afters[0]!.call.arguments, { text: "rewritten" });
  });

  test("kernel 90, builtin 96: deny(message) stops the chain, skips the handler and fires after_tool_call once with the error", async () => {
    let lowerCalled = false;
    let handlerCalled = false;
    const afters: After[] = [];
    const hooks = agentHooksWith(
      { name: "lower", beforeToolCall: () => void (lowerCalled = true) },
      {
        name: "policy",
        beforeToolCall: () => ToolCallDecision.deny("no"),
        afterToolCall: (args: After) => void afters.push(args),
      },
    );
    const tool = defineTool({ name: "bash", handler: () => void (handlerCalled = true) });
    const { toolResults, error } = await new ToolExecutor(hooks).execute([{
      tool,
      arguments: { cmd: "rm" },
    }], {
      context: context(),
    });
    assert.equal(lowerCalled, false);
    assert.equal(handlerCalled, false);
    assert.equal(afters.length, 1);
    assert.equal(afters[0]!.result.error, error);
    assert.equal(afters[0]!.result.result, null);
    assert.equal(afters[0]!.result.runId, "run-1");
    assert.equal(Number.isInteger(afters[0]!.result.durationMs), true);
    assert.ok(BubError.isInstance(error));
    assert.equal(error.kind, "tool");
    assert.deepEqual(toolResults, [{ kind: "tool", message: "no" }]);
  });

  test("kernel 91: deny without a message uses `Tool '<name>' call denied by policy hook.`", async () => {
    const hooks = agentHooksWith({ name: "policy", beforeToolCall: () => ToolCallDecision.deny() });
    const { toolResults } = await new ToolExecutor(hooks).execute([
      { tool: echoTool("fs.write"), name: "fs_write", arguments: {} },
    ]);
    assert.deepEqual(toolResults, [{
      kind: "tool",
      message: "Tool 'fs_write' call denied by policy hook.",
    }]);
  });

  test("kernel 92, builtin 96: replace(result) skips the handler; the model sees the after-hook-adjusted value", async () => {
    let handlerCalled = false;
    const hooks = agentHooksWith(
      {
        name: "adjust",
        afterToolCall: ({ result }: After) => {
          result.result = `${result.result} (adjusted)`;
        },
      },
      { name: "cache", beforeToolCall: () => ToolCallDecision.replace("cached") },
    );
    const tool = defineTool({ name: "web.fetch", handler: () => void (handlerCalled = true) });
    const { toolResults, error } = await new ToolExecutor(hooks).execute([{ tool, arguments: {} }]);
    assert.equal(handlerCalled, false);
    assert.equal(error, null);
    assert.deepEqual(toolResults, ["cached (adjusted)"]);
  });

  test("kernel 93: a raising before_tool_call implementation never vetoes: the tool still runs", async () => {
    const hooks = agentHooksWith({
      name: "broken",
      beforeToolCall: () => {
        throw new Error("policy crashed");
      },
    });
    const { toolResults, error } = await new ToolExecutor(hooks).execute([{
      tool: echoTool(),
      arguments: { a: 1 },
    }]);
    assert.equal(error, null);
    assert.deepEqual(toolResults, [{ a: 1 }]);
  });

  test("kernel 94: after_tool_call fires for success and failure; a failure carries the normalized BubError", async () => {
    const afters: After[] = [];
    const hooks = agentHooksWith({
      name: "observer",
      afterToolCall: (args: After) => void afters.push(args),
    });
    await new ToolExecutor(hooks).execute([
      { tool: echoTool(), arguments: { a: 1 } },
      { tool: boom(), arguments: {} },
    ]);
    assert.equal(afters.length, 2);
    const byTool = new Map(afters.map((after) => [after.result.tool, after.result]));
    assert.deepEqual(byTool.get("echo")!.result, { a: 1 });
    assert.equal(byTool.get("echo")!.error, null);
    const failure = byTool.get("boom")!;
    assert.equal(failure.result, null);
    assert.ok(BubError.isInstance(failure.error));
    assert.equal(failure.error.kind, "tool");
    assert.deepEqual(failure.error.details, { error: "Error('boom')" });
  });

  test("kernel 95: a result assigned in one after_tool_call is seen by later ones and reaches the model", async () => {
    const seenByLater: unknown[] = [];
    const hooks = agentHooksWith(
      { name: "later", afterToolCall: ({ result }: After) => void seenByLater.push(result.result) },
      {
        name: "earlier",
        afterToolCall: hookimpl(({ result }: After) => {
          result.result = "rewritten";
        }, { tryfirst: true }),
      },
    );
    const { toolResults } = await new ToolExecutor(hooks).execute([{
      tool: echoTool(),
      arguments: {},
    }]);
    assert.deepEqual(seenByLater, ["rewritten"]);
    assert.deepEqual(toolResults, ["rewritten"]);
  });

  test("kernel 96: on a failed tool an after hook's result replaces the payload while the step still reports the error", async () => {
    const hooks = agentHooksWith({
      name: "soften",
      afterToolCall: ({ result }: After) => {
        if (BubError.isInstance(result.error)) {
          result.result = `failed softly: ${result.error.message}`;
        }
      },
    });
    const { toolResults, error } = await new ToolExecutor(hooks).execute([{
      tool: boom(),
      arguments: {},
    }]);
    assert.deepEqual(toolResults, ["failed softly: Tool 'boom' execution failed."]);
    assert.ok(BubError.isInstance(error));
    assert.equal(error.message, "Tool 'boom' execution failed.");
  });

  test("kernel 97: an aborted invocation propagates the abort and fires no after_tool_call", async () => {
    let afters = 0;
    const hooks = agentHooksWith({ name: "observer", afterToolCall: () => void afters++ });
    const controller = new AbortController();
    const started = Promise.withResolvers<void>();
    const waits = defineTool({
      name: "waits",
      context: true,
      handler: (_args, ctx) =>
        new Promise((_, reject) => {
          started.resolve();
          ctx.signal!.addEventListener("abort", () => reject(ctx.signal!.reason), { once: true });
        }),
    });
    const running = new ToolExecutor(hooks).execute([{ tool: waits, arguments: {} }], {
      context: context(),
      signal: controller.signal,
    });
    await started.promise;
    controller.abort();
    await assert.rejects(running, { name: "AbortError" });
    assert.equal(afters, 0);
  });

  test("kernel 97: a tool that throws an AbortError is cancelled, not normalized, and fires no after_tool_call", async () => {
    let afters = 0;
    const hooks = agentHooksWith({ name: "observer", afterToolCall: () => void afters++ });
    const tool = boom("cancelled", new DOMException("stopped", "AbortError"));
    await assert.rejects(new ToolExecutor(hooks).execute([{ tool, arguments: {} }]), {
      name: "AbortError",
    });
    assert.equal(afters, 0);
  });

  test("an already aborted signal runs nothing", async () => {
    let ran = false;
    const tool = defineTool({ name: "t", handler: () => void (ran = true) });
    await assert.rejects(
      new ToolExecutor(agentHooksWith()).execute([{ tool, arguments: {} }], {
        signal: AbortSignal.abort(),
      }),
      { name: "AbortError" },
    );
    assert.equal(ran, false);
  });
});
