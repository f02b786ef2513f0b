import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { InMemorySteeringInbox } from "../../src/channels/steering_inbox.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { RunningScope } from "../../src/kernel/running_scope.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { kernelFixture, untilAborted } from "../_helpers/kernel.ts";

/** A plugin whose lifespan is a generator logging enter, exit and the error it saw. */
function lifespanPlugin(name: string, log: string[], kind: "sync" | "async" = "async") {
  if (kind === "sync") {
    return {
      name,
      *provideLifespan() {
        log.push(`enter ${name}`);
        try {
          yield;
        } catch (error) {
          log.push(`error ${name}: ${(error as Error).message}`);
          throw error;
        } finally {
          log.push(`exit ${name}`);
        }
      },
    };
  }
  return {
    name,
    async *provideLifespan() {
      log.push(`enter ${name}`);
      try {
        yield;
      } catch (error) {
        log.push(`error ${name}: ${(error as Error).message}`);
        throw error;
      } finally {
        log.push(`exit ${name}`);
      }
    },
  };
}

describe("running()", () => {
  test("running() calls provideTapeStore once per scope; a generator store is entered once and exited once", async () => {
    using fx = kernelFixture();
    const log: string[] = [];
    const store = { kind: "store" };
    fx.framework.register({
      name: "store",
      *provideTapeStore() {
        log.push("provide+enter");
        try {
          yield store;
        } finally {
          log.push("exit");
        }
      },
      runModel: () => "ok",
    });
    for (let scope = 0; scope < 2; scope++) {
      await using _scope = await fx.framework.running();
      for (let turn = 0; turn < 3; turn++) await fx.framework.processInbound({ content: "hi" });
      assert.equal(fx.framework.getTapeStore(), store);
    }
    assert.deepEqual(log, ["provide+enter", "exit", "provide+enter", "exit"]);
  });

  test("getTapeStore() and getSteeringInbox() return null before and after the scope", async () => {
    using fx = kernelFixture();
    const store = { kind: "plain store" };
    const inbox = new InMemorySteeringInbox();
    fx.framework.register({
      name: "p",
      provideTapeStore: () => store,
      provideSteeringInbox: () => inbox,
    });
    assert.deepEqual([fx.framework.getTapeStore(), fx.framework.getSteeringInbox()], [null, null]);
    {
      await using _scope = await fx.framework.running();
      assert.equal(fx.framework.getTapeStore(), store);
      assert.equal(fx.framework.getSteeringInbox(), inbox);
      const state = await fx.framework.buildState({}, "s");
      assert.equal(state._runtime_steering_inbox, inbox);
    }
    assert.deepEqual([fx.framework.getTapeStore(), fx.framework.getSteeringInbox()], [null, null]);
  });

  test("lifespans are entered before the tape store and steering inbox and exited after them, in reverse entry order", async () => {
    using fx = kernelFixture();
    const log: string[] = [];
    fx.framework.register(lifespanPlugin("first", log, "sync"));
    fx.framework.register(lifespanPlugin("second", log));
    fx.framework.register({
      name: "resources",
      async *provideTapeStore() {
        log.push("enter store");
        yield {};
        log.push("exit store");
      },
      *provideSteeringInbox() {
        log.push("enter inbox");
        yield new InMemorySteeringInbox();
        log.push("exit inbox");
      },
    });
    {
      await using scope = await fx.framework.running();
      scope.defer(() => void log.push("deferred cleanup"));
      log.push("body");
    }
    assert.deepEqual(log, [
      "enter second",
      "enter first",
      "enter store",
      "enter inbox",
      "body",
      "deferred cleanup",
      "exit inbox",
      "exit store",
      "exit first",
      "exit second",
    ]);
  });

  test("lifespan cleanup runs on normal exit, on an exception from the body and on cancellation", async () => {
    using fx = kernelFixture();
    const log: string[] = [];
    fx.framework.register(lifespanPlugin("a", log));
    fx.framework.register(lifespanPlugin("s", log, "sync"));

    await fx.framework.withRunning(() => Promise.resolve(log.push("body")));
    assert.deepEqual(log.splice(0), ["enter s", "enter a", "body", "exit a", "exit s"]);

    const boom = new Error("body failed");
    await assert.rejects(
      fx.framework.withRunning(() => Promise.reject(boom)),
      (error) => error === boom,
    );
    assert.deepEqual(log.splice(0), [
      "enter s",
      "enter a",
      "error a: body failed",
      "exit a",
      "error s: body failed",
      "exit s",
    ]);

    const controller = new AbortController();
    const cancelled = fx.framework.withRunning(() => untilAborted(controller.signal));
    controller.abort(new DOMException("turn cancelled", "AbortError"));
    await assert.rejects(cancelled, { name: "AbortError" });
    assert.deepEqual(log.splice(0), [
      "enter s",
      "enter a",
      "error a: turn cancelled",
      "exit a",
      "error s: turn cancelled",
      "exit s",
    ]);
  });

  test("if the tape store fails to enter, already-entered lifespans are still exited and the error propagates", async () => {
    using fx = kernelFixture();
    const log: string[] = [];
    const cause = new Error("disk unavailable");
    fx.framework.register(lifespanPlugin("life", log));
    fx.framework.register({
      name: "brokenStore",
      // deno-lint-ignore require-yield
      *provideTapeStore() {
        throw cause;
      },
    });
    await assert.rejects(fx.framework.running(), (error: unknown) => {
      assert.ok(BubError.isInstance(error));
      assert.equal(
        error.message,
        'Cannot enter provideTapeStore of plugin "brokenStore": disk unavailable',
      );
      assert.equal(error.cause, cause);
      return true;
    });
    assert.deepEqual(log, [
      "enter life",
      "error life: " + 'Cannot enter provideTapeStore of plugin "brokenStore": disk unavailable',
      "exit life",
    ]);
    assert.equal(fx.framework.getTapeStore(), null);
  });

  test("a BubError raised while entering a resource propagates as the same object", async () => {
    using fx = kernelFixture();
    const original = new BubError("config", "no store configured");
    fx.framework.register({
      name: "p",
      // deno-lint-ignore require-yield
      async *provideTapeStore() {
        throw original;
      },
    });
    await assert.rejects(fx.framework.running(), (error) => error === original);
  });

  test("a promise-returning provideTapeStore implementation is skipped in favour of the next provider", async () => {
    await using logs = await captureLogs();
    using fx = kernelFixture();
    const fallback = { kind: "fallback" };
    fx.framework.register({ name: "fallback", provideTapeStore: () => fallback });
    fx.framework.register({
      name: "asyncStore",
      // deno-lint-ignore require-await
      provideTapeStore: async () => ({ kind: "async" }),
    });
    await using _scope = await fx.framework.running();
    assert.equal(fx.framework.getTapeStore(), fallback);
    assert.deepEqual(logs.warnings(), [
      "hook.async_not_supported hook=provideTapeStore adapter=asyncStore",
    ]);
  });
});

describe("bad resource generators", () => {
  test("a lifespan generator that yields twice fails the scope exit with a TypeError naming the hook and plugin", async () => {
    using fx = kernelFixture();
    let finalized = false;
    fx.framework.register({
      name: "chatty",
      *provideLifespan() {
        try {
          yield 1;
          yield 2;
        } finally {
          finalized = true;
        }
      },
    });
    const scope = await fx.framework.running();
    await assert.rejects(scope.close(), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.equal(
        error.message,
        'Cannot exit provideLifespan of plugin "chatty": the generator yielded more than once',
      );
      return true;
    });
    assert.equal(finalized, true, "the generator is closed");
  });

  test("a lifespan generator that never yields fails running() with a TypeError naming the hook and plugin", async () => {
    using fx = kernelFixture();
    fx.framework.register({
      name: "silent",
      // deno-lint-ignore require-yield
      *provideLifespan() {
        return;
      },
    });
    await assert.rejects(fx.framework.running(), {
      name: "TypeError",
      message: 'Cannot enter provideLifespan of plugin "silent": the generator did not yield',
    });
  });

  test("RunningScope.close(error) throws the error into entered generators; one that swallows it suppresses it", async () => {
    const boom = new Error("body failed");
    const seen: unknown[] = [];
    const swallowing = new RunningScope();
    await swallowing.enter(
      (function* () {
        try {
          yield;
        } catch (error) {
          seen.push(error);
        }
      })(),
      "swallower",
    );
    assert.equal(await swallowing.close(boom), undefined);
    assert.deepEqual([...seen], [boom]);
    const propagating = new RunningScope();
    await propagating.enter(
      (async function* () {
        try {
          yield;
        } finally {
          seen.push("finally");
        }
      })(),
      "cleaner",
    );
    await assert.rejects(propagating.close(boom), (error) => error === boom);
    assert.deepEqual(seen, [boom, "finally"]);
  });
});
