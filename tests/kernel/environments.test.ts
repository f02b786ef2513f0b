import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";
import { Environment } from "../../src/kernel/environment.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { deferred, kernelFixture, RecordingEnvironment } from "../_helpers/kernel.ts";

/** A provider plugin creating one RecordingEnvironment per call and logging the calls. */
function provider() {
  const calls: Array<{ sessionId: string; workspace: string }> = [];
  const created: RecordingEnvironment[] = [];
  const plugin = definePlugin({
    name: "envs",
    provideEnvironment: ({ sessionId, workspace }) => {
      calls.push({ sessionId, workspace });
      const env = new RecordingEnvironment(`${sessionId}#${calls.length}`, workspace);
      created.push(env);
      return env;
    },
    runModel: () => "ok",
  });
  return { calls, created, plugin };
}

describe("environments", () => {
  test("provideEnvironment is called once per session id; later turns of that session reuse the same object", async () => {
    using fx = kernelFixture();
    const p = provider();
    fx.framework.register(p.plugin);
    await using _scope = await fx.framework.running();
    const first = await fx.framework.processInbound({ sessionId: "s", content: "1" });
    const second = await fx.framework.processInbound({ sessionId: "s", content: "2" });
    assert.equal(p.calls.length, 1);
    assert.ok(first.state._runtime_environment instanceof RecordingEnvironment);
    assert.equal(second.state._runtime_environment, first.state._runtime_environment);
    assert.equal(await fx.framework.getEnvironment("s"), first.state._runtime_environment);
  });

  test("different session ids get different environments; the provider receives the framework workspace path", async () => {
    using fx = kernelFixture();
    const p = provider();
    fx.framework.register(p.plugin);
    const a = await fx.framework.getEnvironment("a");
    const b = await fx.framework.getEnvironment("b");
    assert.notEqual(a, b);
    assert.deepEqual(p.calls, [{ sessionId: "a", workspace: fx.dir }, {
      sessionId: "b",
      workspace: fx.dir,
    }]);
    assert.equal(fx.framework.workspace, fx.dir);
  });

  test("all cached environments are closed when running() exits, and not before", async () => {
    using fx = kernelFixture();
    const p = provider();
    fx.framework.register(p.plugin);
    const outside = await fx.framework.getEnvironment(
      "cached-before-scope",
    ) as RecordingEnvironment;
    {
      await using _scope = await fx.framework.running();
      await fx.framework.processInbound({ sessionId: "a", content: "1" });
      await fx.framework.processInbound({ sessionId: "b", content: "1" });
      assert.deepEqual(p.created.map((env) => env.closeCount), [0, 0, 0]);
    }
    assert.deepEqual(p.created.map((env) => env.closeCount), [1, 1, 1]);
    assert.equal(outside.closeCount, 1);
    const fresh = await fx.framework.getEnvironment("a");
    assert.notEqual(fresh, p.created[1], "the cache is cleared on exit");
  });

  test("a failing close() is logged and does not stop other environments from closing or the scope from exiting", async () => {
    await using logs = await captureLogs();
    using fx = kernelFixture();
    const good = new RecordingEnvironment("good");
    const bad = new RecordingEnvironment("bad", null, new Error("close failed"));
    fx.framework.register({
      name: "envs",
      provideEnvironment: ({ sessionId }: { sessionId: string }) =>
        sessionId === "bad" ? bad : good,
    });
    let cleanupRan = false;
    {
      await using scope = await fx.framework.running();
      scope.defer(() => void (cleanupRan = true));
      await fx.framework.getEnvironment("bad");
      await fx.framework.getEnvironment("good");
    }
    assert.deepEqual([bad.closeCount, good.closeCount, cleanupRan], [1, 1, true]);
    assert.ok(
      logs.warnings().some((m) =>
        m.startsWith("Failed to close environment RecordingEnvironment") &&
        m.includes("close failed")
      ),
      String(logs.warnings()),
    );
  });

  test("without any provider the state has no _runtime_environment key and getEnvironment returns null", async () => {
    using fx = kernelFixture();
    fx.framework.register({ name: "m", runModel: () => "ok" });
    const result = await fx.framework.processInbound({ sessionId: "s", content: "hi" });
    assert.equal("_runtime_environment" in result.state, false);
    assert.equal(await fx.framework.getEnvironment("s"), null);
  });

  test("with builtin hooks the state holds a LocalEnvironment whose workspace equals the framework workspace", async () => {
    using fx = kernelFixture({ builtin: true });
    await using _scope = await fx.framework.running();
    const state = await fx.framework.buildState({ sessionId: "s", content: "hi" }, "s");
    const env = state._runtime_environment;
    assert.ok(env instanceof LocalEnvironment, `got ${String(env)}`);
    assert.equal(env.workspace, fx.framework.workspace);
  });

  test("a provider returning a non-Environment value raises TypeError", async () => {
    using fx = kernelFixture();
    fx.framework.register({
      name: "bad",
      provideEnvironment: () => ({ spawn() {}, workspace: "/" }),
    });
    await assert.rejects(fx.framework.getEnvironment("s"), {
      name: "TypeError",
      message: "hook.provide_environment must return Environment or None",
    });
  });

  test("when two first turns of one session race, the losing environment is closed and both get the winner", async () => {
    using fx = kernelFixture();
    const gates = [deferred(), deferred()];
    const created: RecordingEnvironment[] = [];
    fx.framework.register(definePlugin({
      name: "slow",
      provideEnvironment: async () => {
        const index = created.length;
        const env = new RecordingEnvironment(`env${index}`);
        created.push(env);
        await gates[index]!.promise;
        return env;
      },
    }));
    const first = fx.framework.getEnvironment("s");
    const second = fx.framework.getEnvironment("s");
    gates[1]!.resolve();
    const secondEnv = await second;
    gates[0]!.resolve();
    const firstEnv = await first;
    assert.equal(created.length, 2);
    const [loser, winner] = created as [RecordingEnvironment, RecordingEnvironment];
    assert.equal(secondEnv, winner);
    assert.equal(firstEnv, winner);
    assert.deepEqual([loser.closeCount, winner.closeCount], [1, 0]);
    assert.ok(winner instanceof Environment);
  });
});
