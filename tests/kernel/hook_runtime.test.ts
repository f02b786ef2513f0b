import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { HookRuntime } from "../../src/kernel/hook_runtime.ts";
import { hookimpl } from "../../src/kernel/plugin.ts";
import { PluginManager } from "../../src/kernel/plugin_manager.ts";
import { AsyncStreamEvents } from "../../src/kernel/stream.ts";
import { captureLogs } from "../_helpers/log_capture.ts";

type Impl = (args: Record<string, unknown>) => unknown;

/** A runtime with one plugin per entry, registered in order (later = higher priority). */
function runtimeWith(hook: string, impls: Array<[string, Impl]>): HookRuntime {
  const manager = new PluginManager();
  for (const [name, fn] of impls) manager.register({ name, [hook]: hookimpl(fn) });
  return new HookRuntime(manager);
}

const ARGS = { message: { content: "hi" }, sessionId: "s" };

describe("callFirst", () => {
  test("callFirst returns the first non-null value walking implementations in reverse registration order", async () => {
    const runtime = runtimeWith("resolveSession", [["a", () => "from-a"], ["b", () => "from-b"], [
      "c",
      () => null,
    ]]);
    assert.equal(await runtime.callFirst("resolveSession", ARGS), "from-b");
  });

  test("callFirst does not call lower-priority implementations once a non-null value is returned", async () => {
    const called: string[] = [];
    const runtime = runtimeWith("resolveSession", [
      ["low", () => void called.push("low")],
      ["mid", () => (called.push("mid"), "mid")],
      ["high", () => (called.push("high"), undefined)],
    ]);
    assert.equal(await runtime.callFirst("resolveSession", ARGS), "mid");
    assert.deepEqual(called, ["high", "mid"]);
  });

  test("callFirst returns a falsy non-null value and stops there", async () => {
    for (const falsy of ["", 0, false]) {
      let lowerCalled = false;
      const runtime = runtimeWith("buildPrompt", [["low", () => (lowerCalled = true, "low")], [
        "high",
        () => falsy,
      ]]);
      assert.equal(await runtime.callFirst("buildPrompt", ARGS), falsy);
      assert.equal(lowerCalled, false, `lower implementation ran after ${JSON.stringify(falsy)}`);
    }
  });

  test("callFirst returns null when every implementation returns null, and for an unknown hook name", async () => {
    const runtime = runtimeWith("resolveSession", [["a", () => null], ["b", () => undefined]]);
    assert.equal(await runtime.callFirst("resolveSession", ARGS), null);
    assert.equal(await runtime.callFirst("noSuchHook", ARGS), null);
    assert.deepEqual(await runtime.callMany("noSuchHook", ARGS), []);
  });
});

describe("callMany", () => {
  test("callMany returns values of all implementations in priority order, including null values", async () => {
    const runtime = runtimeWith("loadState", [["a", () => ({ a: 1 })], ["b", () => null], [
      "c",
      () => "c",
    ]]);
    assert.deepEqual(await runtime.callMany("loadState", ARGS), ["c", null, { a: 1 }]);
  });

  test("callMany and callFirst propagate an implementation's exception and skip the remaining implementations", async () => {
    const boom = new Error("boom");
    for (const method of ["callMany", "callFirst"] as const) {
      const called: string[] = [];
      const runtime = runtimeWith("loadState", [
        ["low", () => void called.push("low")],
        ["mid", () => Promise.reject(boom)],
        ["high", () => void called.push("high")],
      ]);
      await assert.rejects(runtime[method]("loadState", ARGS), (error) => error === boom);
      assert.deepEqual(called, ["high"], method);
    }
    const sync = runtimeWith("systemPrompt", [["low", () => "x"], ["high", () => {
      throw boom;
    }]]);
    assert.throws(() => sync.callManySync("systemPrompt", {}), (error) => error === boom);
  });

  test("async dispatch awaits thenables returned by implementations; sync implementations work unchanged", async () => {
    const thenable = { then: (resolve: (value: string) => void) => resolve("thenable") };
    const runtime = runtimeWith("loadState", [
      ["sync", () => "sync"],
      ["promise", () => Promise.resolve("promise")],
      ["thenable", () => thenable],
    ]);
    assert.deepEqual(await runtime.callMany("loadState", ARGS), ["thenable", "promise", "sync"]);
    assert.equal(await runtime.callFirst("loadState", ARGS), "thenable");
  });
});

describe("sync dispatch", () => {
  test("callManySync omits a promise-returning implementation and logs hook.async_not_supported", async () => {
    await using logs = await captureLogs();
    const runtime = runtimeWith("systemPrompt", [
      ["low", () => "low"],
      ["asyncPlugin", () => Promise.resolve("never used")],
      ["rejecting", () => Promise.reject(new Error("ignored rejection"))],
    ]);
    assert.deepEqual(runtime.callManySync("systemPrompt", {}), ["low"]);
    const warnings = logs.warnings();
    assert.ok(
      warnings.includes("hook.async_not_supported hook=systemPrompt adapter=asyncPlugin"),
      String(warnings),
    );
    assert.ok(
      warnings.includes("hook.async_not_supported hook=systemPrompt adapter=rejecting"),
      String(warnings),
    );
  });

  test("callFirstSync skips a promise-returning implementation and returns the next non-null value", async () => {
    await using logs = await captureLogs();
    const runtime = runtimeWith("buildTapeContext", [
      ["low", () => "low"],
      ["mid", () => null],
      // deno-lint-ignore require-await
      ["high", async () => "async"],
    ]);
    assert.equal(runtime.callFirstSync("buildTapeContext", {}), "low");
    assert.deepEqual(logs.warnings(), [
      "hook.async_not_supported hook=buildTapeContext adapter=high",
    ]);
  });

  test("a generator or async-generator implementation is accepted by sync dispatch (not treated as awaitable)", async () => {
    await using logs = await captureLogs();
    function* syncGen(): Generator<string> {
      yield "sync";
    }
    async function* asyncGen(): AsyncGenerator<string> {
      yield "async";
    }
    const runtime = runtimeWith("provideLifespan", [["s", syncGen], ["a", asyncGen]]);
    const [first, second] = runtime.callManySync("provideLifespan", {}) as [
      AsyncGenerator<string>,
      Generator<string>,
    ];
    assert.equal((await first.next()).value, "async");
    assert.equal(second.next().value, "sync");
    assert.equal(runtime.callFirstSync("provideLifespan", {}) !== null, true);
    assert.deepEqual(logs.warnings(), []);
  });
});

describe("error notification", () => {
  test("notifyError calls every onError observer even when one throws, and never throws itself", async () => {
    await using _logs = await captureLogs();
    const seen: string[] = [];
    const error = new Error("original");
    const manager = new PluginManager();
    manager.register({
      name: "a",
      onError: ({ stage, error: e }: { stage: string; error: unknown }) => {
        seen.push(`a:${stage}:${e === error}`);
      },
    });
    manager.register({
      name: "b",
      onError: () => Promise.reject(new Error("async observer failed")),
    });
    manager.register({
      name: "c",
      onError: () => {
        throw new Error("sync observer failed");
      },
    });
    const runtime = new HookRuntime(manager);
    assert.equal(await runtime.notifyError({ stage: "turn", error, message: null }), undefined);
    assert.deepEqual(seen, ["a:turn:true"]);
  });

  test("a failing observer logs hook.on_error_failed stage=<stage> adapter=<plugin>", async () => {
    await using logs = await captureLogs();
    const manager = new PluginManager();
    manager.register({ name: "fine", onError: () => {} });
    manager.register({ name: "broken", onError: () => Promise.reject(new Error("observer boom")) });
    const runtime = new HookRuntime(manager);
    await runtime.notifyError({ stage: "run_model", error: new Error("x"), message: null });
    runtime.notifyErrorSync({ stage: "admit_message", error: new Error("x"), message: null });
    const warnings = logs.warnings();
    assert.equal(warnings.length, 2, String(warnings));
    assert.match(
      warnings[0]!,
      /^hook\.on_error_failed stage=run_model adapter=broken\b.*observer boom/,
    );
    assert.match(warnings[1]!, /^hook\.async_not_supported hook=onError adapter=broken$/);
  });

  test("notifyErrorSync does not await a promise returned by an observer and logs the async-not-supported warning", async () => {
    await using logs = await captureLogs();
    const manager = new PluginManager();
    let settled = false;
    const calls: string[] = [];
    manager.register({ name: "sync", onError: () => void calls.push("sync") });
    manager.register({
      name: "slow",
      onError: async () => {
        calls.push("slow");
        await new Promise((resolve) => setTimeout(resolve, 5));
        settled = true;
      },
    });
    const runtime = new HookRuntime(manager);
    assert.equal(
      runtime.notifyErrorSync({ stage: "x", error: new Error("x"), message: null }),
      undefined,
    );
    assert.deepEqual(calls, ["slow", "sync"]);
    assert.equal(settled, false);
    assert.deepEqual(logs.warnings(), ["hook.async_not_supported hook=onError adapter=slow"]);
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});

describe("model dispatch", () => {
  test("runModel rejects a wrong-typed result with a TypeError naming the hook", async () => {
    const text = runtimeWith("runModel", [["bad", () => 42]]);
    await assert.rejects(
      text.runModel({ prompt: "p", sessionId: "s", state: {} }),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(
          error.message,
          /^hook\.run_model must return str or None, got a number \(42\)/,
        );
        return true;
      },
    );
    const stream = runtimeWith("runModelStream", [["bad", () => ({ kind: "text" })]]);
    await assert.rejects(
      stream.runModelStream({ prompt: "p", sessionId: "s", state: {} }),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(
          error.message,
          /^hook\.run_model_stream must return AsyncStreamEvents or None/,
        );
        return true;
      },
    );
  });

  test("runModelStream returns the provider's AsyncStreamEvents unchanged", async () => {
    async function* events() {
      yield { kind: "text", data: { delta: "x" } };
    }
    const stream = new AsyncStreamEvents(events());
    const runtime = runtimeWith("runModelStream", [["p", () => stream]]);
    assert.equal(await runtime.runModelStream({ prompt: "p", sessionId: "s", state: {} }), stream);
  });
});
