import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

const echo = definePlugin({ name: "echo", runModel: ({ prompt }) => `echo:${String(prompt)}` });

describe("outbounds and result", () => {
  test("renderOutbound batches from all plugins are concatenated; a single non-list return counts as one envelope; null counts as none", async () => {
    using fx = kernelFixture();
    fx.framework.register(echo);
    fx.framework.register({
      name: "list",
      renderOutbound: () => [{ content: "a" }, { content: "b" }],
    });
    fx.framework.register({ name: "none", renderOutbound: () => null });
    // deno-lint-ignore require-await
    fx.framework.register({ name: "single", renderOutbound: async () => ({ content: "c" }) });
    const result = await fx.framework.processInbound({ content: "hi" });
    assert.deepEqual(result.outbounds, [{ content: "c" }, { content: "a" }, { content: "b" }]);
  });

  test("with no outbound rendered one fallback { content, sessionId, channel?, chatId? } is produced; absent keys are omitted", async () => {
    using fx = kernelFixture();
    fx.framework.register(echo).register({ name: "nothing", renderOutbound: () => [] });
    const full = await fx.framework.processInbound({ channel: "c", chatId: "x", content: "hi" });
    assert.deepEqual(full.outbounds, [{
      content: "echo:hi",
      sessionId: "c:x",
      channel: "c",
      chatId: "x",
    }]);
    const bare = await fx.framework.processInbound({
      sessionId: "s",
      content: "hi",
      channel: null,
    });
    assert.deepEqual(bare.outbounds, [{ content: "echo:hi", sessionId: "s" }]);
  });

  test("every outbound is passed to every dispatchOutbound implementation, in outbound order", async () => {
    using fx = kernelFixture();
    const seen: string[] = [];
    fx.framework.register(echo);
    fx.framework.register({
      name: "r",
      renderOutbound: () => [{ content: "1" }, { content: "2" }],
    });
    for (const name of ["d1", "d2"]) {
      fx.framework.register(definePlugin({
        name,
        dispatchOutbound: ({ message }) =>
          void seen.push(`${name}:${(message as { content: string }).content}`),
      }));
    }
    await fx.framework.processInbound({ content: "hi" });
    assert.deepEqual(seen, ["d2:1", "d1:1", "d2:2", "d1:2"]);
  });

  test("TurnResult carries session id, prompt, model output, outbounds and the final state object", async () => {
    using fx = kernelFixture();
    let savedState: unknown = null;
    fx.framework.register(echo).register(definePlugin({
      name: "p",
      loadState: () => ({ loaded: true }),
      buildPrompt: () => "built",
      saveState: ({ state }) => void (state.saved = true, savedState = state),
    }));
    const result = await fx.framework.processInbound({ sessionId: "s", content: "hi" });
    assert.equal(result.sessionId, "s");
    assert.equal(result.prompt, "built");
    assert.equal(result.modelOutput, "echo:built");
    assert.deepEqual(result.outbounds, [{ content: "echo:built", sessionId: "s" }]);
    assert.equal(result.state, savedState);
    assert.equal(result.state.loaded, true);
    assert.equal(result.state.saved, true);
  });
});
