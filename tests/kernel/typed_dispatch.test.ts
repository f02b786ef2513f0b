/**
 * The typed dispatcher `HookRuntime.call`: it follows `HOOK_SPECS` (first-result or broadcast,
 * sync or async), rejects the agent-loop hooks, and its argument and result types come from the
 * hook signatures (the `@ts-expect-error` lines are checked by `deno test`/`deno check`). Also the
 * one table of result checks (`checkHookResult`).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { HookRuntime } from "../../src/kernel/hook_runtime.ts";
import { checkHookResult, HOOK_RESULT_CHECKS } from "../../src/kernel/hook_results.ts";
import { HOOK_SPECS, type HookName } from "../../src/kernel/hook_specs.ts";
import { definePlugin, hookimpl } from "../../src/kernel/plugin.ts";
import { PluginManager } from "../../src/kernel/plugin_manager.ts";
import { captureLogs } from "../_helpers/log_capture.ts";

const MESSAGE = { channel: "cli", chatId: "local", content: "hi" };

function runtimeOf(...plugins: object[]): HookRuntime {
  const manager = new PluginManager();
  for (const plugin of plugins) manager.register(plugin);
  return new HookRuntime(manager);
}

describe("HookRuntime.call", () => {
  test("a first-result hook answers the highest-priority non-null value, typed by its signature", async () => {
    const runtime = runtimeOf(
      definePlugin({ name: "low", resolveSession: () => "low" }),
      definePlugin({ name: "mid", resolveSession: async () => await Promise.resolve("mid") }),
      definePlugin({ name: "high", resolveSession: () => null }),
    );
    const sessionId: string | null = await runtime.call("resolveSession", { message: MESSAGE });
    assert.equal(sessionId, "mid");
  });

  test("a broadcast hook answers every value in priority order, nulls included", async () => {
    const runtime = runtimeOf(
      definePlugin({ name: "a", loadState: () => ({ a: 1 }) }),
      definePlugin({ name: "b", loadState: () => undefined }),
      definePlugin({ name: "c", loadState: () => Promise.resolve({ c: 3 }) }),
    );
    const results = await runtime.call("loadState", { message: MESSAGE, sessionId: "s" });
    assert.deepEqual(results, [{ c: 3 }, null, { a: 1 }]);
  });

  test("a sync-only hook answers synchronously and skips a promise with hook.async_not_supported", async () => {
    const runtime = runtimeOf(
      definePlugin({ name: "sync", systemPrompt: () => "sync part" }),
      { name: "async", systemPrompt: () => Promise.resolve("never") },
    );
    await using logs = await captureLogs();
    const parts: (string | null)[] = runtime.call("systemPrompt", { prompt: "p", state: {} });
    assert.ok(Array.isArray(parts), "a sync-only hook answers without a promise");
    assert.deepEqual(parts, ["sync part"]);
    assert.ok(
      logs.warnings().includes("hook.async_not_supported hook=systemPrompt adapter=async"),
      String(logs.warnings()),
    );
  });

  test("an agent-loop hook is refused with a TypeError naming getAgentHooks()", () => {
    const runtime = runtimeOf();
    assert.throws(
      // @ts-expect-error agent-loop hooks are not generic dispatch hooks
      () => runtime.call("beforeToolCall", {}),
      (error: unknown) =>
        error instanceof TypeError && /beforeToolCall.*getAgentHooks\(\)/.test(error.message),
    );
  });

  test("errors propagate from the first failing implementation and stop the walk", async () => {
    let lowCalled = false;
    const runtime = runtimeOf(
      { name: "low", saveState: () => void (lowCalled = true) },
      { name: "high", saveState: hookimpl(() => Promise.reject(new Error("boom"))) },
    );
    await assert.rejects(
      runtime.call("saveState", { sessionId: "s", state: {}, message: MESSAGE, modelOutput: "" }),
      /boom/,
    );
    assert.equal(lowCalled, false);
  });

  test("argument and hook-name types come from the signatures", () => {
    const runtime = runtimeOf();
    const typeOnly = (_body: () => unknown): void => {};
    // @ts-expect-error unknown hook name
    typeOnly(() => runtime.call("resolveSesion", { message: MESSAGE }));
    // @ts-expect-error missing sessionId
    typeOnly(() => runtime.call("loadState", { message: MESSAGE }));
    typeOnly(() => {
      // @ts-expect-error a broadcast hook answers a list, not one value
      const one: string | null = runtime.call("systemPrompt", { prompt: "", state: {} });
      return one;
    });
    typeOnly(() =>
      definePlugin({
        name: "async-sync-only",
        // @ts-expect-error a sync-only hook cannot be implemented with a promise
        systemPrompt: () => Promise.resolve("late"),
      })
    );
    assert.ok(true);
  });
});

describe("hook result checks", () => {
  test("every checked hook is a known hook, and a wrong answer names the hook, the expectation and the plugin", () => {
    for (const hook of Object.keys(HOOK_RESULT_CHECKS)) assert.ok(hook in HOOK_SPECS, hook);
    assert.throws(
      () => checkHookResult("onboardConfig", "text", "p1"),
      {
        name: "TypeError",
        message:
          'hook.onboard_config must return dict or None, got a string (text) from plugin "p1"',
      },
    );
    assert.throws(() => checkHookResult("runModel", 42), {
      message: "hook.run_model must return str or None, got a number (42)",
    });
  });

  test("null and undefined mean no value, except for a hook that must answer", () => {
    assert.equal(checkHookResult("continuePrompt", undefined), null);
    assert.equal(checkHookResult("resolveSession" as HookName, 7), 7);
    assert.throws(() => checkHookResult("buildTapeContext", null), {
      message: "hook.build_tape_context must return TapeContext, got null",
    });
  });
});
