import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Envelope } from "../../src/kernel/envelope.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import type { TurnState } from "../../src/kernel/turn.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { kernelFixture, untilAborted } from "../_helpers/kernel.ts";

const echo = definePlugin({ name: "echo", runModel: ({ prompt }) => `echo:${String(prompt)}` });

describe("session resolution", () => {
  test("processInbound falls back to the message's sessionId field, then to '<channel>:<chatId>' with 'default' for missing parts", async () => {
    using fx = kernelFixture();
    fx.framework.register(echo);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ sessionId: "own", channel: "c", chatId: "x" }, "own"],
      [{ session_id: "snake", channel: "c" }, "snake"],
      [{ channel: "c", chatId: "x" }, "c:x"],
      [{ channel: "c", chat_id: 7 }, "c:7"],
      [{ channel: "c" }, "c:default"],
      [{ chatId: "x" }, "default:x"],
      [{}, "default:default"],
    ];
    for (const [inbound, expected] of cases) {
      const result = await fx.framework.processInbound(inbound);
      assert.equal(result.sessionId, expected, JSON.stringify(inbound));
    }
  });

  test("a hook returning '' for resolveSession triggers the fallback", async () => {
    using fx = kernelFixture();
    fx.framework.register(echo);
    fx.framework.register(definePlugin({ name: "empty", resolveSession: () => "" }));
    assert.equal(
      (await fx.framework.processInbound({ channel: "c", chatId: "x" })).sessionId,
      "c:x",
    );
    fx.framework.register(definePlugin({ name: "answer", resolveSession: () => "hooked" }));
    assert.equal(
      (await fx.framework.processInbound({ channel: "c", chatId: "x" })).sessionId,
      "hooked",
    );
  });

  test("for a plain-object inbound without sessionId the resolved id is written into it; an existing key is not overwritten", async () => {
    using fx = kernelFixture();
    fx.framework.register(echo);
    fx.framework.register(definePlugin({ name: "r", resolveSession: () => "resolved" }));
    const plain: Record<string, unknown> = { channel: "c", content: "hi" };
    await fx.framework.processInbound(plain);
    assert.equal(plain.sessionId, "resolved");
    const existing: Record<string, unknown> = { channel: "c", sessionId: null };
    await fx.framework.processInbound(existing);
    assert.equal(existing.sessionId, null);
    class Message {
      channel = "c";
      content = "hi";
    }
    const instance = new Message();
    await fx.framework.processInbound(instance);
    assert.equal("sessionId" in instance, false, "attribute-style envelopes are not modified");
  });
});

describe("state and prompt", () => {
  test("buildState seeds _runtime_workspace (string) and _runtime_steering_inbox (null outside running())", async () => {
    using fx = kernelFixture();
    const state = await fx.framework.buildState({ content: "hi" }, "s");
    assert.deepEqual(state, { _runtime_workspace: fx.dir, _runtime_steering_inbox: null });
    assert.equal(typeof state._runtime_workspace, "string");
  });

  test("loadState results are merged so that the highest-priority plugin wins key collisions", async () => {
    using fx = kernelFixture();
    fx.framework.register(
      definePlugin({ name: "low", loadState: () => ({ shared: "low", low: 1 }) }),
    );
    fx.framework.register(
      // deno-lint-ignore require-await
      definePlugin({ name: "high", loadState: async () => ({ shared: "high", high: 2 }) }),
    );
    const state = await fx.framework.buildState({}, "s");
    assert.equal(state.shared, "high");
    assert.equal(state.low, 1);
    assert.equal(state.high, 2);
  });

  test("a loadState implementation can override a seeded _runtime_* key; non-dict results are ignored", async () => {
    using fx = kernelFixture();
    fx.framework.register({ name: "odd", loadState: () => ["not", "a", "dict"] });
    fx.framework.register({ name: "text", loadState: () => "nope" });
    fx.framework.register({
      name: "override",
      loadState: () => ({ _runtime_workspace: "/elsewhere" }),
    });
    const state = await fx.framework.buildState({}, "s");
    assert.deepEqual(state, { _runtime_workspace: "/elsewhere", _runtime_steering_inbox: null });
  });

  test("buildPrompt returning '' falls back to contentOf(message) without consulting lower implementations", async () => {
    using fx = kernelFixture();
    let lowerCalled = false;
    fx.framework.register(
      definePlugin({ name: "low", buildPrompt: () => (lowerCalled = true, "low prompt") }),
    );
    fx.framework.register(definePlugin({ name: "high", buildPrompt: () => "" }));
    fx.framework.register(echo);
    const result = await fx.framework.processInbound({ content: "the content" });
    assert.equal(result.prompt, "the content");
    assert.equal(result.modelOutput, "echo:the content");
    assert.equal(lowerCalled, false);
  });
});

/** Records saveState / onError calls of a turn. */
function observer() {
  const saves: Array<{ modelOutput: string; error: unknown; state: TurnState }> = [];
  const errors: Array<{ stage: string; error: unknown; message: Envelope | null }> = [];
  const plugin = definePlugin({
    name: "observer",
    saveState: ({ modelOutput, error, state }) => void saves.push({ modelOutput, error, state }),
    onError: ({ stage, error, message }) => void errors.push({ stage, error, message }),
  });
  return { saves, errors, plugin };
}

describe("saveState and errors", () => {
  test("saveState runs once after a successful model stage with the final output", async () => {
    using fx = kernelFixture();
    const obs = observer();
    fx.framework.register(obs.plugin).register(echo);
    const result = await fx.framework.processInbound({ content: "hi" });
    assert.equal(obs.saves.length, 1);
    assert.equal(obs.saves[0]!.modelOutput, "echo:hi");
    assert.equal(obs.saves[0]!.state, result.state);
  });

  test("saveState runs once after a failing model stage with modelOutput '' and the original error propagates", async () => {
    await using _logs = await captureLogs();
    using fx = kernelFixture();
    const obs = observer();
    const boom = new Error("model failed");
    fx.framework.register(obs.plugin).register({ name: "m", runModel: () => Promise.reject(boom) });
    await assert.rejects(fx.framework.processInbound({ content: "hi" }), (error) => error === boom);
    assert.equal(obs.saves.length, 1);
    assert.equal(obs.saves[0]!.modelOutput, "");
    assert.equal(obs.saves[0]!.error, boom);
  });

  test("saveState does not run when loadState or buildPrompt throws", async () => {
    await using _logs = await captureLogs();
    for (const hook of ["loadState", "buildPrompt"]) {
      using fx = kernelFixture();
      const obs = observer();
      fx.framework.register(obs.plugin).register(echo).register({
        name: "bad",
        [hook]: () => {
          throw new Error(`${hook} failed`);
        },
      });
      await assert.rejects(
        fx.framework.processInbound({ content: "hi" }),
        new RegExp(`${hook} failed`),
      );
      assert.equal(obs.saves.length, 0, hook);
    }
  });

  test("a throwing saveState replaces the model error as the turn error", async () => {
    await using _logs = await captureLogs();
    using fx = kernelFixture();
    const saveError = new Error("save failed");
    fx.framework.register({ name: "m", runModel: () => Promise.reject(new Error("model failed")) });
    fx.framework.register({ name: "s", saveState: () => Promise.reject(saveError) });
    await assert.rejects(
      fx.framework.processInbound({ content: "hi" }),
      (error) => error === saveError,
    );
  });

  test("any exception in the pipeline triggers onError stage 'turn' with the inbound message, then the same error is re-thrown", async () => {
    await using logs = await captureLogs();
    using fx = kernelFixture();
    const obs = observer();
    const boom = new Error("dispatch failed");
    fx.framework.register(obs.plugin).register(echo).register({
      name: "d",
      dispatchOutbound: () => {
        throw boom;
      },
    });
    const inbound = { channel: "c", content: "hi" };
    await assert.rejects(fx.framework.processInbound(inbound), (error) => error === boom);
    assert.equal(obs.errors.length, 1);
    assert.equal(obs.errors[0]!.stage, "turn");
    assert.equal(obs.errors[0]!.error, boom);
    assert.equal(obs.errors[0]!.message, inbound);
    assert.ok(logs.messages().some((m) => m.startsWith("Error processing inbound message")));
  });

  test("cancelling processInbound does not trigger onError but still runs saveState if the model stage had started", async () => {
    await using _logs = await captureLogs();
    for (const stream of [false, true]) {
      using fx = kernelFixture();
      const obs = observer();
      const controller = new AbortController();
      const started = Promise.withResolvers<void>();
      fx.framework.register(obs.plugin).register({
        name: "slow",
        runModel: (
          { signal }: { signal?: AbortSignal },
        ) => (started.resolve(), untilAborted(signal)),
      });
      const turn = fx.framework.processInbound({ content: "hi" }, {
        stream,
        signal: controller.signal,
      });
      await started.promise;
      controller.abort();
      await assert.rejects(turn, (error: unknown) => (error as Error).name === "AbortError");
      assert.equal(obs.saves.length, 1, `stream=${stream}`);
      assert.equal(obs.saves[0]!.modelOutput, "");
      assert.deepEqual(obs.errors, [], `stream=${stream}`);
    }
  });

  test("cancelling before the model stage skips both saveState and onError", async () => {
    using fx = kernelFixture();
    const obs = observer();
    fx.framework.register(obs.plugin).register(echo);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      fx.framework.processInbound({ content: "hi" }, { signal: controller.signal }),
      {
        name: "AbortError",
      },
    );
    assert.deepEqual([obs.saves.length, obs.errors.length], [0, 0]);
  });
});
