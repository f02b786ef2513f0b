import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { HookRuntime } from "../../src/kernel/hook_runtime.ts";
import { walkHook, walkHookNow } from "../../src/kernel/_hook_walk.ts";
import { hookimpl } from "../../src/kernel/plugin.ts";
import { PluginManager } from "../../src/kernel/plugin_manager.ts";

type Impl = (args: Record<string, unknown>) => unknown;

/** A runtime with one plugin per entry, registered in order (later = higher priority). */
function managerWith(hook: string, impls: Array<[string, Impl]>): PluginManager {
  const manager = new PluginManager();
  for (const [name, fn] of impls) manager.register({ name, [hook]: hookimpl(fn) });
  return manager;
}

describe("hook walk: synchronous answers, then thenables", () => {
  test("sync and async implementations mixed run in priority order, each after the last settled", async () => {
    const order: string[] = [];
    const manager = managerWith("saveState", [
      ["a", () => void order.push("a")],
      ["b", async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push("b");
        return "b";
      }],
      ["c", () => {
        order.push("c");
        return "c";
      }],
    ]);
    const results = await new HookRuntime(manager).callMany("saveState", {});
    assert.deepEqual(order, ["c", "b", "a"]);
    assert.deepEqual(results, ["c", "b", null]);
  });

  test("callFirst stops at the first non-null value, sync or awaited", async () => {
    const called: string[] = [];
    const sync = managerWith("resolveSession", [
      ["low", () => void called.push("low")],
      ["high", () => (called.push("high"), "s1")],
    ]);
    assert.equal(await new HookRuntime(sync).callFirst("resolveSession", {}), "s1");
    assert.deepEqual(called, ["high"]);
    const later = managerWith("resolveSession", [
      ["low", () => Promise.resolve("s2")],
      ["high", () => null],
    ]);
    assert.equal(await new HookRuntime(later).callFirst("resolveSession", {}), "s2");
    assert.equal(await new HookRuntime(new PluginManager()).callFirst("resolveSession", {}), null);
  });

  test("a synchronous throw is a rejection of the dispatch, not a throw from the call", async () => {
    const manager = managerWith("saveState", [["a", () => {
      throw new Error("boom");
    }]]);
    const runtime = new HookRuntime(manager);
    let promise: Promise<unknown> | undefined;
    assert.doesNotThrow(() => promise = runtime.callMany("saveState", {}));
    await assert.rejects(promise!, /boom/);
    await assert.rejects(runtime.callFirst("saveState", {}), /boom/);
    await assert.rejects(
      walkHook(manager.implementations("saveState"), {}, () => {}),
      /boom/,
    );
  });

  test("walkHookNow answers null when every implementation answered synchronously", async () => {
    const seen: unknown[] = [];
    const sync = managerWith("saveState", [["a", () => 1], ["b", () => 2]]);
    assert.equal(
      walkHookNow(sync.implementations("saveState"), {}, (v) => void seen.push(v)),
      null,
    );
    assert.deepEqual([...seen], [2, 1]);
    const mixed = managerWith("saveState", [["a", () => 1], ["b", () => Promise.resolve(2)]]);
    const rest = walkHookNow(mixed.implementations("saveState"), {}, (v) => void seen.push(v));
    assert.ok(rest instanceof Promise);
    await rest;
    assert.deepEqual([...seen], [2, 1, 2, 1]);
  });

  test("isolate sees synchronous throws and rejections alike; the walk goes on", async () => {
    const manager = managerWith("onError", [
      ["a", () => Promise.reject(new Error("late"))],
      ["b", () => "ok"],
      ["c", () => {
        throw new Error("now");
      }],
    ]);
    const seen: unknown[] = [];
    await walkHook(manager.implementations("onError"), {}, (value) => void seen.push(value), {
      isolate: (error) => `isolated ${(error as Error).message}`,
    });
    assert.deepEqual(seen, ["isolated now", "ok", "isolated late"]);
  });
});
