import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { KernelFramework } from "../../src/kernel/framework.ts";
import { hookimpl } from "../../src/kernel/plugin.ts";
import { PluginManager } from "../../src/kernel/plugin_manager.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { kernelFixture, tempDir } from "../_helpers/kernel.ts";

const LOG_KEY = "__bubKernelPluginTestLog";

/** Writes an ES module plugin file into `dir` and returns its path. */
function writeModule(dir: string, file: string, source: string): string {
  const path = join(dir, file);
  writeFileSync(path, source);
  return path;
}

describe("registration", () => {
  test("registering a non-object plugin throws a TypeError that says what was given", () => {
    const manager = new PluginManager();
    for (const bad of [42, "plugin", null, [], () => {}] as unknown[]) {
      assert.throws(() => manager.register(bad as object, "bad"), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(
          error.message,
          /^Cannot register plugin "bad": expected an object with hook implementations, got /,
        );
        return true;
      });
    }
    assert.throws(
      () => manager.register({ resolveSession: () => "x" }),
      /needs a non-empty string name/,
    );
    assert.equal(manager.plugins.size, 0);
  });

  test("registering an already-used name or the same plugin object twice is an error", () => {
    const manager = new PluginManager();
    const plugin = { name: "p", resolveSession: () => "x" };
    manager.register(plugin);
    assert.throws(() => manager.register({ name: "p" }), (error: unknown) => {
      assert.ok(BubError.isInstance(error));
      assert.equal(error.kind, "invalid_input");
      assert.match(error.message, /name "p" is already registered/);
      return true;
    });
    assert.throws(
      () => manager.register(plugin, "other"),
      /the same object is already registered as "p"/,
    );
    assert.deepEqual([...manager.plugins.keys()], ["p"]);
  });

  test("hookimpl rejects tryfirst together with trylast and a non-function", () => {
    assert.throws(() => hookimpl(() => {}, { tryfirst: true, trylast: true }), TypeError);
    assert.throws(() => hookimpl(42 as unknown as () => void), /expected a function, got number/);
  });

  test("failClosed comes from hookimpl's option or the plugin's policy: true; default false", () => {
    const manager = new PluginManager();
    manager.register({ name: "plain", beforeToolCall: () => null });
    manager.register({
      name: "marked",
      beforeToolCall: hookimpl(() => null, { failClosed: true }),
      afterToolCall: () => {},
    });
    manager.register({ name: "policy", policy: true, beforeLlmCall: () => null });
    const flags = (hook: string) =>
      manager.implementations(hook).map((impl) => `${impl.pluginName}=${impl.failClosed}`);
    assert.deepEqual(flags("beforeToolCall"), ["marked=true", "plain=false"]);
    assert.deepEqual(flags("afterToolCall"), ["marked=false"]);
    assert.deepEqual(flags("beforeLlmCall"), ["policy=true"]);
    assert.deepEqual(manager.hookReport().policy, undefined, "policy is a flag, not a hook");
  });

  test("a specname implementation implements the named hook", () => {
    const manager = new PluginManager();
    manager.register({
      name: "p",
      whoAmI: hookimpl(() => "named", { specname: "resolveSession" }),
    });
    assert.deepEqual(manager.hookReport(), { resolveSession: ["p"] });
  });
});

describe("loadHooks", () => {
  test("loadHooks registers builtin under the name builtin before any listed plugin", async () => {
    using fx = kernelFixture();
    const plugin = { name: "mine", resolveSession: () => "mine" };
    await fx.framework.loadHooks({ plugins: [plugin] });
    assert.deepEqual([...fx.framework.pluginManager.plugins.keys()], ["builtin", "mine"]);
    assert.deepEqual(fx.framework.pluginStatus.get("builtin"), { isSuccess: true });
    assert.deepEqual(fx.framework.pluginStatus.get("mine"), { isSuccess: true });
  });

  test("a config-listed plugin that fails to load rejects loadHooks with a BubError naming spec, path and error", async () => {
    using tmp = tempDir();
    writeModule(tmp.path, "broken.mjs", `throw new Error("broken at import");`);
    writeFileSync(join(tmp.path, "config.yml"), "plugins:\n  - ./broken.mjs\n");
    const framework = new KernelFramework({
      loadDotenv: false,
      configFile: join(tmp.path, "config.yml"),
      home: tmp.path,
    });
    await assert.rejects(framework.loadHooks(), (error: unknown) => {
      assert.ok(BubError.isInstance(error));
      assert.equal(error.kind, "config");
      assert.equal(
        error.message,
        `Cannot load plugin "./broken.mjs" (${join(tmp.path, "broken.mjs")}): broken at import`,
      );
      return true;
    });
  });

  test("with strict: false (the default for an explicit list) a failing plugin is recorded as failed and the others still load", async () => {
    await using logs = await captureLogs();
    using tmp = tempDir();
    writeModule(tmp.path, "ok.mjs", `export default { name: "ok", resolveSession: () => "ok" };`);
    writeModule(tmp.path, "broken.mjs", `throw new Error("broken at import");`);
    writeFileSync(
      join(tmp.path, "config.yml"),
      "plugins:\n  - ./broken.mjs\n  - ./missing.mjs\n  - ./ok.mjs\n",
    );
    const framework = new KernelFramework({
      loadDotenv: false,
      configFile: join(tmp.path, "config.yml"),
      home: tmp.path,
    });
    await framework.loadHooks({ strict: false });
    assert.deepEqual([...framework.pluginManager.plugins.keys()], ["builtin", "ok"]);
    const broken = framework.pluginStatus.get("./broken.mjs");
    assert.equal(broken?.isSuccess, false);
    assert.match(broken?.detail ?? "", /broken at import/);
    assert.equal(framework.pluginStatus.get("./missing.mjs")?.isSuccess, false);
    assert.ok(
      logs.warnings().some((m) => m.startsWith("Failed to load plugin './broken.mjs'")),
      String(logs.warnings()),
    );
    assert.equal(await framework.hookRuntime.callFirst("resolveSession", { message: {} }), "ok");
  });

  test("a callable target is called with the framework and the result is registered under the entry name", async () => {
    using tmp = tempDir();
    writeModule(
      tmp.path,
      "factory.mjs",
      `export default (framework) => ({ loadState: () => ({ sameFramework: framework === globalThis.${LOG_KEY} }) });`,
    );
    const configFile = writeModule(tmp.path, "config.yml", "plugins: [./factory.mjs]\n");
    const framework = new KernelFramework({ loadDotenv: false, configFile, home: tmp.path });
    const g = globalThis as Record<string, unknown>;
    g[LOG_KEY] = framework;
    try {
      let received: unknown = null;
      await framework.loadHooks({
        plugins: [
          "./factory.mjs",
          (fw: KernelFramework) => (received = fw, { name: "inline", saveState: () => {} }),
        ],
      });
      assert.equal(received, framework);
      assert.deepEqual([...framework.pluginManager.plugins.keys()], [
        "builtin",
        "./factory.mjs",
        "inline",
      ]);
      assert.deepEqual(
        await framework.hookRuntime.callMany("loadState", { message: {}, sessionId: "s" }),
        [
          { sameFramework: true },
        ],
      );
    } finally {
      delete g[LOG_KEY];
    }
  });

  test("all targets are loaded before any is instantiated; config is already loaded when constructors run", async () => {
    using tmp = tempDir();
    for (const id of ["a", "b"]) {
      writeModule(
        tmp.path,
        `${id}.mjs`,
        `globalThis.${LOG_KEY}.push("load ${id}");
export default (framework) => {
  globalThis.${LOG_KEY}.push("init ${id} greeting=" + framework.config.greeting);
  return { name: "${id}" };
};`,
      );
    }
    const configFile = writeModule(
      tmp.path,
      "config.yml",
      "greeting: hello\nplugins:\n  - ./a.mjs\n  - ./b.mjs\n",
    );
    const g = globalThis as Record<string, unknown>;
    const log: string[] = [];
    g[LOG_KEY] = log;
    try {
      const framework = new KernelFramework({ loadDotenv: false, configFile, home: tmp.path });
      await framework.loadHooks();
      assert.deepEqual(log, ["load a", "load b", "init a greeting=hello", "init b greeting=hello"]);
      assert.deepEqual([...framework.pluginManager.plugins.keys()], ["builtin", "a", "b"]);
    } finally {
      delete g[LOG_KEY];
    }
  });

  test("a plugin factory returning a non-object is recorded as failed with a message naming the plugin", async () => {
    await using _logs = await captureLogs();
    using fx = kernelFixture();
    await fx.framework.loadHooks({
      plugins: [{ name: "fine" }, function broken() {
        return 42;
      }],
    });
    assert.deepEqual([...fx.framework.pluginManager.plugins.keys()], ["builtin", "fine"]);
    const status = fx.framework.pluginStatus.get("broken");
    assert.equal(status?.isSuccess, false);
    assert.match(
      status?.detail ?? "",
      /Cannot register plugin "broken": expected an object .* got number/,
    );
  });
});

describe("bub hooks", () => {
  test("bub hooks prints one '<hook>: <plugins>' line per hook, lowest priority first", async () => {
    using tmp = tempDir();
    writeModule(
      tmp.path,
      "extra.mjs",
      `export default { name: "extra", resolveSession: () => "x" };`,
    );
    const configFile = writeModule(tmp.path, "config.yml", "plugins: [./extra.mjs]\n");
    let out = "";
    let err = "";
    const code = await main(["hooks"], {
      stdout: (text) => void (out += text),
      stderr: (text) => void (err += text),
      framework: { loadDotenv: false, configFile, home: tmp.path, workspace: tmp.path },
      configureLogging: false,
    });
    assert.equal(code, 0, err);
    const lines = out.trim().split("\n");
    assert.ok(lines.includes("resolveSession: builtin, extra"), out);
    assert.deepEqual(lines, [...lines].sort(), "hooks sorted by name");
    for (const line of lines) assert.match(line, /^[a-zA-Z]+: [\w, ]+$/);
  });
});
