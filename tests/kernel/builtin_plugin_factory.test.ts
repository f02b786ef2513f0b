import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { BubFramework } from "../../src/builtin/framework.ts";
import type { BuiltinPlugin } from "../../src/builtin/plugin.ts";
import { BuiltinRuntime } from "../../src/builtin/runtime.ts";
import { KernelFramework } from "../../src/kernel/framework.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { tempDir } from "../_helpers/kernel.ts";

function init(dir: string) {
  return { loadDotenv: false, configFile: join(dir, "config.yml"), home: dir, workspace: dir };
}

describe("the builtin plugin factory (FrameworkOptions.builtinPlugin)", () => {
  test("a bare kernel registers an empty plugin named builtin", () => {
    using tmp = tempDir();
    const kernel = new KernelFramework(init(tmp.path)).loadBuiltinHooks();
    assert.deepEqual(kernel.pluginManager.get("builtin"), { name: "builtin" });
    assert.deepEqual(kernel.pluginStatus.get("builtin"), { isSuccess: true });
  });

  test("the kernel calls the factory with itself and registers what it returns", async () => {
    using tmp = tempDir();
    const seen: KernelFramework[] = [];
    const kernel = new KernelFramework({
      ...init(tmp.path),
      builtinPlugin: (framework) => {
        seen.push(framework);
        return definePlugin({ name: "mine", runModel: ({ prompt }) => `mine: ${prompt}` });
      },
    });
    assert.equal(seen.length, 0, "the factory runs at loadBuiltinHooks, not at construction");
    kernel.loadBuiltinHooks();
    assert.deepEqual(seen, [kernel]);
    assert.equal((kernel.pluginManager.get("builtin") as { name: string }).name, "mine");
    const result = await kernel.processInbound({ channel: "cli", chatId: "c", content: "hi" });
    assert.equal(result.modelOutput, "mine: hi");
  });

  test("a factory that throws fails loadBuiltinHooks with its error; nothing is registered", () => {
    using tmp = tempDir();
    const kernel = new KernelFramework({
      ...init(tmp.path),
      builtinPlugin: () => {
        throw new Error("no builtin today");
      },
    });
    assert.throws(() => kernel.loadBuiltinHooks(), /no builtin today/);
    assert.equal(kernel.pluginManager.get("builtin"), undefined);
  });

  test("when the name builtin is taken, the failure is recorded in pluginStatus", () => {
    using tmp = tempDir();
    const kernel = new KernelFramework({
      ...init(tmp.path),
      builtinPlugin: () => definePlugin({ name: "second" }),
    });
    kernel.register(definePlugin({ name: "first" }), "builtin");
    kernel.loadBuiltinHooks();
    const status = kernel.pluginStatus.get("builtin");
    assert.equal(status?.isSuccess, false);
    assert.match(String(status?.detail), /builtin/);
    assert.equal((kernel.pluginManager.get("builtin") as { name: string }).name, "first");
  });

  test("new BubFramework() still loads the real builtin plugin, serving that framework", () => {
    using tmp = tempDir();
    const bub = new BubFramework(init(tmp.path));
    assert.equal(bub.pluginManager.get("builtin"), undefined);
    bub.loadBuiltinHooks();
    const builtin = bub.pluginManager.get("builtin") as BuiltinPlugin;
    assert.equal(builtin.framework, bub);
    assert.ok(builtin.runtime instanceof BuiltinRuntime);
    assert.deepEqual(bub.pluginStatus.get("builtin"), { isSuccess: true });
  });

  test("a BubFramework given its own factory uses it instead of the builtin one", () => {
    using tmp = tempDir();
    const bub = new BubFramework({
      ...init(tmp.path),
      builtinPlugin: () => definePlugin({ name: "replacement" }),
    }).loadBuiltinHooks();
    assert.equal((bub.pluginManager.get("builtin") as { name: string }).name, "replacement");
  });

  test("a subclass overriding createBuiltinPlugin still works as before", () => {
    using tmp = tempDir();
    class Custom extends KernelFramework {
      protected override createBuiltinPlugin(): object {
        return definePlugin({ name: "custom" });
      }
    }
    const kernel = new Custom(init(tmp.path)).loadBuiltinHooks();
    assert.equal((kernel.pluginManager.get("builtin") as { name: string }).name, "custom");
  });
});
