import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mergeConfig } from "../../src/kernel/configure.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

describe("configure", () => {
  test("configure.merge deep-merges nested mappings in place, incoming scalars win, and the base object is returned", () => {
    const base: Record<string, unknown> = {
      model: "a",
      telegram: { token: "t", nested: { keep: 1 } },
      list: [1],
    };
    const telegram = base.telegram;
    const incoming = {
      telegram: { allow_users: "1,2", nested: { add: 2 } },
      model: "b",
      fresh: { x: { y: 1 } },
    };
    const merged = mergeConfig(base, incoming, { list: [2], model: "c" });
    assert.equal(merged, base);
    assert.equal(base.telegram, telegram, "nested mappings are merged in place");
    assert.deepEqual(base, {
      model: "c",
      telegram: { token: "t", nested: { keep: 1, add: 2 }, allow_users: "1,2" },
      list: [2],
      fresh: { x: { y: 1 } },
    });
    assert.notEqual(base.fresh, incoming.fresh, "incoming mappings are deep-copied");
    (incoming.fresh.x as Record<string, unknown>).y = 99;
    assert.deepEqual(base.fresh, { x: { y: 1 } });
    assert.deepEqual(mergeConfig({ model: "a" }, { model: "b" }), { model: "b" });
    assert.deepEqual(mergeConfig({ a: { b: 1 } }, { a: "scalar" }), { a: "scalar" });
  });

  test("collectOnboardConfig passes the accumulated config to later implementations and raises TypeError on a non-dict fragment", () => {
    using fx = kernelFixture({ config: "model: from-file\n" });
    const seen: unknown[] = [];
    fx.framework.register(definePlugin({
      name: "low",
      onboardConfig: (
        { currentConfig },
      ) => (seen.push(structuredClone(currentConfig)),
        { demo_choice: "low", demo_plugin: { token: "t" } }),
    }));
    fx.framework.register(definePlugin({ name: "skip", onboardConfig: () => null }));
    fx.framework.register(definePlugin({
      name: "high",
      onboardConfig: (
        { currentConfig },
      ) => (seen.push(structuredClone(currentConfig)),
        { demo_choice: "high", demo_plugin: { allow: "1" } }),
    }));
    const config = fx.framework.collectOnboardConfig();
    assert.deepEqual(seen, [{}, { demo_choice: "low", demo_plugin: { token: "t" } }]);
    assert.deepEqual(config, { demo_choice: "high", demo_plugin: { token: "t", allow: "1" } });
    fx.framework.register({ name: "broken", onboardConfig: () => "demo_choice: x" });
    assert.throws(() => fx.framework.collectOnboardConfig(), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(
        error.message,
        /^hook\.onboard_config must return dict or None, got a string .* from plugin "broken"/,
      );
      return true;
    });
  });
});
