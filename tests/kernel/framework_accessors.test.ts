import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { admitDecision, type Channel } from "../../src/kernel/channel.ts";
import { definePlugin, hookimpl } from "../../src/kernel/plugin.ts";
import { StreamState } from "../../src/kernel/stream.ts";
import { TapeContext } from "../../src/kernel/tape_context.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

function channel(name: string, owner: string): Channel & { owner: string } {
  return { name, owner, start: () => Promise.resolve(), stop: () => Promise.resolve() };
}

const TURN = {
  sessionId: "s",
  isRunning: false,
  runningCount: 0,
  pendingCount: 0,
  steeringCount: 0,
};

describe("framework accessors", () => {
  test("getSystemPrompt joins truthy results lowest-priority first with a blank line", () => {
    using fx = kernelFixture();
    fx.framework.register(definePlugin({ name: "low", systemPrompt: () => "low" }));
    fx.framework.register(definePlugin({ name: "empty", systemPrompt: () => "" }));
    fx.framework.register(definePlugin({ name: "none", systemPrompt: () => null }));
    fx.framework.register(definePlugin({ name: "high", systemPrompt: () => "high" }));
    assert.equal(fx.framework.getSystemPrompt({ prompt: "p", state: {} }), "low\n\nhigh");
  });

  test("getTapeSidecars dedupes by name with the highest-priority provider winning and keeps unique names from all plugins", () => {
    using fx = kernelFixture();
    const lowSpill = { name: "spill", owner: "low" };
    const highSpill = { name: "spill", owner: "high" };
    const notes = { name: "notes", owner: "low2" };
    fx.framework.register({ name: "low", provideTapeSidecar: () => lowSpill });
    fx.framework.register({ name: "low2", provideTapeSidecar: () => notes });
    fx.framework.register({ name: "none", provideTapeSidecar: () => null });
    fx.framework.register({ name: "high", provideTapeSidecar: () => highSpill });
    assert.deepEqual(fx.framework.getTapeSidecars(), [highSpill, notes]);
  });

  test("getChannels dedupes by channel name, the highest-priority plugin's channel winning", () => {
    using fx = kernelFixture();
    const handler = () => Promise.resolve();
    let received: unknown = null;
    fx.framework.register({
      name: "low",
      provideChannels: () => [channel("cli", "low"), channel("telegram", "low")],
    });
    fx.framework.register(definePlugin({
      name: "high",
      provideChannels: (
        { messageHandler },
      ) => (received = messageHandler, [channel("cli", "high")]),
    }));
    const channels = fx.framework.getChannels(handler);
    assert.deepEqual([...channels.keys()], ["cli", "telegram"]);
    assert.equal((channels.get("cli") as unknown as { owner: string }).owner, "high");
    assert.equal((channels.get("telegram") as unknown as { owner: string }).owner, "low");
    assert.equal(received, handler);
  });

  test("getModelOptions concatenates models in priority order and takes the first truthy currentModel", async () => {
    using fx = kernelFixture();
    let workspaceSeen: unknown = null;
    fx.framework.register(definePlugin({
      name: "low",
      provideModelOptions: () => ({ models: [{ id: "a:1" }, { id: "b:2" }], currentModel: "a:1" }),
    }));
    fx.framework.register({ name: "none", provideModelOptions: () => null });
    fx.framework.register(definePlugin({
      name: "high",
      // deno-lint-ignore require-await
      provideModelOptions: async (
        { workspace },
      ) => (workspaceSeen = workspace, { models: [{ id: "c:3" }], currentModel: "" }),
    }));
    const options = await fx.framework.getModelOptions({ sessionId: "s" });
    assert.deepEqual(options.models.map((m) => m.id), ["c:3", "a:1", "b:2"]);
    assert.equal(options.currentModel, "a:1");
    assert.equal(workspaceSeen, fx.dir);
  });

  test("getModelOptions raises TypeError for a non-ModelOptions, non-null result", async () => {
    using fx = kernelFixture();
    fx.framework.register({ name: "bad", provideModelOptions: () => ["a:1"] });
    await assert.rejects(fx.framework.getModelOptions({ sessionId: "s" }), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(
        error.message,
        /^hook\.provide_model_options must return ModelOptions or None, got an array/,
      );
      return true;
    });
  });

  test("admitMessage raises TypeError for a non-AdmitDecision, non-null result", async () => {
    using fx = kernelFixture();
    fx.framework.register({ name: "bad", admitMessage: () => "drop" });
    await assert.rejects(
      fx.framework.admitMessage({ sessionId: "s", message: {}, turn: TURN }),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /^hook\.admit_message must return AdmitDecision or None/);
        return true;
      },
    );
    using ok = kernelFixture();
    assert.equal(
      await ok.framework.admitMessage({ sessionId: "s", message: {}, turn: TURN }),
      null,
    );
    ok.framework.register({ name: "good", admitMessage: () => admitDecision("drop", "busy") });
    assert.deepEqual(await ok.framework.admitMessage({ sessionId: "s", message: {}, turn: TURN }), {
      action: "drop",
      reason: "busy",
    });
  });

  test("buildTapeContext raises TypeError when no implementation returns a TapeContext", () => {
    using fx = kernelFixture();
    assert.throws(
      () => fx.framework.buildTapeContext(),
      /^TypeError: hook\.build_tape_context must return TapeContext/,
    );
    fx.framework.register({ name: "wrong", buildTapeContext: () => ({ anchor: null }) });
    assert.throws(() => fx.framework.buildTapeContext(), TypeError);
    const context = new TapeContext({ anchor: "a" });
    fx.framework.register({ name: "right", buildTapeContext: () => context });
    assert.equal(fx.framework.buildTapeContext(), context);
  });

  test("continuePrompt returns null when no implementation answers and raises TypeError for a non-string", async () => {
    using fx = kernelFixture();
    const args = { prompt: "p", tape: null, state: new StreamState() };
    assert.equal(await fx.framework.continuePrompt(args), null);
    fx.framework.register({ name: "none", continuePrompt: () => null });
    assert.equal(await fx.framework.continuePrompt(args), null);
    fx.framework.register({ name: "bad", continuePrompt: () => 7 });
    await assert.rejects(
      fx.framework.continuePrompt(args),
      /^TypeError: hook\.continue_prompt must return str or None/,
    );
  });

  test("continuePrompt awaits an async highest-priority implementation and does not call a lower sync one", async () => {
    using fx = kernelFixture();
    let lowerCalled = false;
    const state = new StreamState();
    let seen: unknown = null;
    fx.framework.register(
      definePlugin({ name: "low", continuePrompt: () => (lowerCalled = true, "low") }),
    );
    fx.framework.register(definePlugin({
      name: "high",
      continuePrompt: hookimpl(
        async (args: { prompt: unknown; tape: unknown; state: StreamState }) => {
          seen = args;
          await Promise.resolve();
          return "go on";
        },
      ),
    }));
    assert.equal(await fx.framework.continuePrompt({ prompt: null, tape: "tape", state }), "go on");
    assert.equal(lowerCalled, false);
    assert.deepEqual(seen, { prompt: null, tape: "tape", state });
  });
});
