import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { HOOK_SPECS, type HookName } from "../../src/kernel/hook_specs.ts";
import { HookRuntime } from "../../src/kernel/hook_runtime.ts";
import { hookimpl } from "../../src/kernel/plugin.ts";
import { PluginManager } from "../../src/kernel/plugin_manager.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

type Impl = (args: Record<string, unknown>) => unknown;

/** A runtime with one plugin per entry, registered in order (later = higher priority). */
function runtimeWith(hook: string, impls: Array<[string, Impl]>): HookRuntime {
  const manager = new PluginManager();
  for (const [name, fn] of impls) manager.register({ name, [hook]: hookimpl(fn) });
  return new HookRuntime(manager);
}

const ARGS = { message: { content: "hi" }, sessionId: "s" };

describe("priority", () => {
  test("normal implementations run LIFO: the plugin registered last runs first", async () => {
    const order: string[] = [];
    const runtime = runtimeWith(
      "saveState",
      ["a", "b", "c"].map((n) => [n, () => void order.push(n)]),
    );
    await runtime.callMany("saveState", {});
    assert.deepEqual(order, ["c", "b", "a"]);
  });

  test("tryfirst implementations run before all normal ones; trylast after all normal ones", async () => {
    const manager = new PluginManager();
    const order: string[] = [];
    const impl = (n: string, options = {}) => ({
      name: n,
      saveState: hookimpl(() => void order.push(n), options),
    });
    manager.register(impl("A", { trylast: true }));
    manager.register(impl("B", { trylast: true }));
    manager.register(impl("C"));
    manager.register(impl("D", { tryfirst: true }));
    manager.register(impl("E"));
    await new HookRuntime(manager).callMany("saveState", {});
    assert.deepEqual(order, ["D", "E", "C", "A", "B"]);
    assert.deepEqual(manager.hookReport().saveState, ["B", "A", "C", "E", "D"]);
  });

  test("among several trylast implementations the earliest registered runs first", async () => {
    const manager = new PluginManager();
    for (const n of ["first", "second", "third"]) {
      manager.register({ name: n, resolveSession: hookimpl(() => n, { trylast: true }) });
    }
    const runtime = new HookRuntime(manager);
    assert.equal(await runtime.callFirst("resolveSession", ARGS), "first");
    assert.deepEqual(runtime.implementations("resolveSession").map((i) => i.pluginName), [
      "first",
      "second",
      "third",
    ]);
  });

  test("builtin (registered first) loses every firstresult hook to any plugin that answers non-null", async () => {
    using fx = kernelFixture({ builtin: true });
    const runtime = fx.framework.hookRuntime;
    const builtinHooks = (Object.keys(HOOK_SPECS) as HookName[]).filter((hook) =>
      HOOK_SPECS[hook].kind === "firstresult" &&
      runtime.implementations(hook).some((impl) => impl.pluginName === "builtin")
    );
    assert.ok(builtinHooks.length >= 3, `builtin implements firstresult hooks: ${builtinHooks}`);
    const answer = { plugin: "wins" };
    const plugin: Record<string, unknown> = { name: "plugin" };
    for (const hook of builtinHooks) plugin[hook] = () => answer;
    fx.framework.register(plugin);
    for (const hook of builtinHooks) {
      const args = { message: { channel: "cli", chatId: "x" }, sessionId: "s", turn: {} };
      const value = HOOK_SPECS[hook].syncOnly
        ? runtime.callFirstSync(hook, args)
        : await runtime.callFirst(hook, args);
      assert.equal(value, answer, hook);
    }
  });

  test("each implementation receives one object of named arguments and may omit parameters it does not use", async () => {
    const seen: unknown[] = [];
    const manager = new PluginManager();
    manager.register({ name: "none", loadState: () => ({ none: true }) });
    manager.register({
      name: "some",
      loadState: ({ sessionId }: { sessionId: string }) => ({ some: sessionId }),
    });
    manager.register({ name: "all", loadState: (args: unknown) => void seen.push(args) });
    const results = await new HookRuntime(manager).callMany("loadState", ARGS);
    assert.deepEqual(results, [null, { some: "s" }, { none: true }]);
    assert.deepEqual(seen, [ARGS]);
  });

  test("hookReport lists plugins per hook in raw order, hooks sorted by name, empty hooks omitted", () => {
    const manager = new PluginManager();
    manager.register({ name: "a", saveState: () => {}, loadState: () => {}, notAHook: () => {} });
    manager.register({
      name: "b",
      saveState: hookimpl(() => {}, { trylast: true }),
      customHook: hookimpl(() => {}),
    });
    manager.register({ name: "c", saveState: () => {} });
    manager.register({ name: "empty" });
    const report = new HookRuntime(manager).hookReport();
    assert.deepEqual(Object.keys(report), ["customHook", "loadState", "saveState"]);
    assert.deepEqual(report.saveState, ["b", "a", "c"]);
    assert.deepEqual(report.customHook, ["b"]);
  });
});
