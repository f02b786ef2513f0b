import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { ChannelRouter } from "../../src/kernel/channel.ts";
import type { Envelope } from "../../src/kernel/envelope.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import { AsyncStreamEvents, type StreamEvent, streamOf } from "../../src/kernel/stream.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

/** Records onError calls. */
function errorObserver() {
  const errors: Array<{ stage: string; error: unknown; message: Envelope | null }> = [];
  const plugin = definePlugin({
    name: "errors",
    onError: ({ stage, error, message }) => void errors.push({ stage, error, message }),
  });
  return { errors, plugin };
}

/** A router that records every event passing through `wrapStream`. */
function recordingRouter(transform: (event: StreamEvent) => StreamEvent = (e) => e) {
  const seen: StreamEvent[] = [];
  const router: ChannelRouter = {
    dispatchOutput: () => Promise.resolve(false),
    quit: () => Promise.resolve(),
    admitChannelMessage: () => Promise.resolve(null),
    async *wrapStream(_message, stream) {
      for await (const event of stream) {
        seen.push(event);
        yield transform(event);
      }
    },
  };
  return { seen, router };
}

describe("model stage", () => {
  test("runModel returning a non-string non-null value raises TypeError('hook.run_model must return str or None')", async () => {
    await using _logs = await captureLogs();
    using fx = kernelFixture();
    const obs = errorObserver();
    fx.framework.register(obs.plugin).register({
      name: "bad",
      runModel: () => ({ text: "not a string" }),
    });
    await assert.rejects(fx.framework.processInbound({ content: "hi" }), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /^hook\.run_model must return str or None/);
      return true;
    });
    assert.deepEqual(obs.errors.map((e) => e.stage), ["turn"]);
  });

  test("with no model hook at all, onError gets stage run_model with 'no model skill returned output' and the turn still completes", async () => {
    for (const stream of [false, true]) {
      using fx = kernelFixture();
      const obs = errorObserver();
      let saved = false;
      fx.framework.register(obs.plugin).register({
        name: "save",
        saveState: () => void (saved = true),
      });
      const inbound = { sessionId: "s", content: "hi" };
      const result = await fx.framework.processInbound(inbound, { stream });
      assert.equal(obs.errors.length, 1);
      assert.equal(obs.errors[0]!.stage, "run_model");
      assert.equal((obs.errors[0]!.error as Error).message, "no model skill returned output");
      assert.equal(obs.errors[0]!.message, inbound);
      assert.equal(result.modelOutput, "hi");
      assert.deepEqual(result.outbounds, [{ content: "hi", sessionId: "s" }]);
      assert.equal(saved, true);
    }
  });

  test("the no-model fallback output is the prompt itself when it is a string, otherwise contentOf(inbound)", async () => {
    using fx = kernelFixture();
    fx.framework.register({ name: "text", buildPrompt: () => "the prompt" });
    assert.equal((await fx.framework.processInbound({ content: "raw" })).modelOutput, "the prompt");
    fx.framework.register({ name: "parts", buildPrompt: () => [{ type: "text", text: "part" }] });
    assert.equal((await fx.framework.processInbound({ content: "raw" })).modelOutput, "raw");
  });

  test("non-streaming processInbound with only a runModelStream provider returns the concatenated text deltas", async () => {
    using fx = kernelFixture();
    const obs = errorObserver();
    let closed = false;
    fx.framework.register(obs.plugin).register({
      name: "streamer",
      runModelStream: () =>
        streamOf([
          { kind: "text", data: { delta: "Hel" } },
          { kind: "reasoning", data: { delta: "ignored" } },
          { kind: "error", data: { kind: "provider", message: "not forwarded" } },
          { kind: "text", data: { delta: "lo" } },
          { kind: "text", data: {} },
        ], { onClose: () => void (closed = true) }),
    });
    const result = await fx.framework.processInbound({ content: "hi" });
    assert.equal(result.modelOutput, "Hello");
    assert.equal(closed, true, "the stream is closed after consumption");
    assert.deepEqual(obs.errors, [], "error events are not forwarded on the non-streaming path");
  });

  test("streaming processInbound with only a runModel provider produces exactly one text event with the result", async () => {
    using fx = kernelFixture();
    const { seen, router } = recordingRouter();
    fx.framework.bindChannelRouter(router);
    fx.framework.register({ name: "text", runModel: () => "whole answer" });
    const result = await fx.framework.processInbound({ content: "hi" }, { stream: true });
    assert.deepEqual(seen, [{ kind: "text", data: { delta: "whole answer" } }]);
    assert.equal(result.modelOutput, "whole answer");
  });

  test("in streaming mode each error event triggers onError stage run_model with a BubError of the event's kind, and consumption continues", async () => {
    using fx = kernelFixture();
    const obs = errorObserver();
    fx.framework.register(obs.plugin).register({
      name: "streamer",
      runModelStream: () =>
        streamOf([
          { kind: "text", data: { delta: "a" } },
          {
            kind: "error",
            data: { kind: "provider", message: "rate limited", details: { status: 429 } },
          },
          { kind: "text", data: { delta: "b" } },
          { kind: "error", data: { kind: "weird" } },
          { kind: "text", data: { delta: "c" } },
        ]),
    });
    const inbound = { content: "hi" };
    const result = await fx.framework.processInbound(inbound, { stream: true });
    assert.equal(result.modelOutput, "abc");
    assert.equal(obs.errors.length, 2);
    const [first, second] = obs.errors.map((e) => e.error);
    assert.ok(BubError.isInstance(first) && BubError.isInstance(second));
    assert.deepEqual(first.asDict(), {
      kind: "provider",
      message: "rate limited",
      details: { status: 429 },
    });
    assert.deepEqual(second.asDict(), { kind: "unknown", message: "" });
    assert.deepEqual(obs.errors.map((e) => [e.stage, e.message]), [["run_model", inbound], [
      "run_model",
      inbound,
    ]]);
  });

  test("in streaming mode with a bound router, events are consumed through router.wrapStream", async () => {
    using fx = kernelFixture();
    const { seen, router } = recordingRouter((e) =>
      e.kind === "text" ? { kind: "text", data: { delta: String(e.data.delta).toUpperCase() } } : e
    );
    let closed = false;
    async function* events(): AsyncGenerator<StreamEvent> {
      yield { kind: "text", data: { delta: "x" } };
      yield { kind: "usage", data: { tokens: 1 } };
      yield { kind: "text", data: { delta: "y" } };
    }
    fx.framework.bindChannelRouter(router);
    fx.framework.register({
      name: "streamer",
      runModelStream: () =>
        new AsyncStreamEvents(events(), { onClose: () => void (closed = true) }),
    });
    const inbound = { content: "hi" };
    const result = await fx.framework.processInbound(inbound, { stream: true });
    assert.deepEqual(seen.map((e) => e.kind), ["text", "usage", "text"]);
    assert.equal(result.modelOutput, "XY");
    assert.equal(closed, true);
    fx.framework.bindChannelRouter(null);
    assert.equal((await fx.framework.processInbound(inbound, { stream: true })).modelOutput, "xy");
  });
});
