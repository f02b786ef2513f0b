/**
 * Model call limits (issue 10 item 8): a stall timeout (no bytes from the provider) and an
 * overall timeout, each a temporary `BubError` recorded on the tape, after which the session
 * answers the next message normally. Over real HTTP to a `MockLlmServer` that stops sending.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ModelRunner } from "../../src/agent/model_runner.ts";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { loadAgentSettings } from "../../src/builtin/settings.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { eventData, turnFixture } from "./_turn_fixture.ts";

async function failure(promise: Promise<unknown>): Promise<BubError> {
  const error = await promise.then(() => null, (e) => e);
  assert.ok(BubError.isInstance(error), `expected a BubError, got ${error}`);
  return error;
}

describe("model stall timeout", () => {
  test("a stream that stops sending fails after the stall timeout with a temporary BubError on the tape; the next message is answered", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.stalled(mockReply.text("never finished", { chunks: 4 }), 3),
        mockReply.text("back again"),
      ],
      env: { BUB_MODEL_STALL_TIMEOUT_SECONDS: "0.3" },
    });
    const started = performance.now();
    const error = await failure(fx.turn("hello"));
    const took = performance.now() - started;
    assert.equal(error.kind, "temporary");
    assert.match(error.message, /stalled: no data from the provider for 0.3 seconds/);
    assert.ok(took >= 250 && took < 5_000, `failed after ${took} ms`);
    const step = eventData(await fx.entries(), "loop.step").at(-1)!;
    assert.equal(step.status, "error");
    assert.match(String(step.error), /stalled/);
    const next = await fx.turn("again");
    assert.equal(next.modelOutput, "back again");
  });

  test("a provider that never answers the request counts as stalled too", async () => {
    await using fx = await turnFixture({
      script: [mockReply.stalled(mockReply.text("x"), 0), mockReply.text("ok")],
      env: { BUB_MODEL_STALL_TIMEOUT_SECONDS: "0.3", BUB_MODEL_TIMEOUT_SECONDS: "30" },
    });
    const error = await failure(fx.turn("hello"));
    assert.match(error.message, /stalled/);
    assert.equal((await fx.turn("again")).modelOutput, "ok");
  });

  test("keep-alive bytes without events are not a stall; the overall timeout still ends the call", async () => {
    await using fx = await turnFixture({
      script: [
        {
          ...mockReply.stalled(mockReply.text("slow thinking", { chunks: 3 }), 2),
          stallKeepAliveMs: 100,
        },
        mockReply.text("fine"),
      ],
      env: { BUB_MODEL_STALL_TIMEOUT_SECONDS: "0.4", BUB_MODEL_TIMEOUT_SECONDS: "1.5" },
    });
    const started = performance.now();
    const error = await failure(fx.turn("hello"));
    assert.equal(error.kind, "temporary");
    assert.match(error.message, /timed out after 1.5 seconds/);
    assert.ok(performance.now() - started >= 1_400);
    const step = eventData(await fx.entries(), "loop.step").at(-1)!;
    assert.match(String(step.error), /timed out/);
    assert.equal((await fx.turn("again")).modelOutput, "fine");
  });

  test("a slow stream whose chunks keep coming is not cut by the stall timeout", async () => {
    await using fx = await turnFixture({
      script: [{ text: ["a", "b", "c", "d", "e"], delayMs: 150 }],
      env: { BUB_MODEL_STALL_TIMEOUT_SECONDS: "0.4" },
    });
    assert.equal((await fx.turn("hello")).modelOutput, "abcde");
  });
});

describe("model timeout settings", () => {
  test("defaults: 600 s overall, 120 s stall; null turns either off", () => {
    const defaults = loadAgentSettings({ env: {}, config: {} });
    assert.equal(defaults.model_timeout_seconds, 600);
    assert.equal(defaults.model_stall_timeout_seconds, 120);
    const off = loadAgentSettings({
      env: { BUB_MODEL_TIMEOUT_SECONDS: "null", BUB_MODEL_STALL_TIMEOUT_SECONDS: "null" },
    });
    assert.equal(off.model_timeout_seconds, null);
    assert.equal(off.model_stall_timeout_seconds, null);
    const fractional = loadAgentSettings({ config: { model_stall_timeout_seconds: 2.5 } });
    assert.equal(fractional.model_stall_timeout_seconds, 2.5);
  });

  test("negative or zero values are clear settings errors, never a raw RangeError", () => {
    for (
      const [env, message] of [
        [
          { BUB_MODEL_TIMEOUT_SECONDS: "-5" },
          /model_timeout_seconds must be greater than 0, got -5 \(from BUB_MODEL_TIMEOUT_SECONDS\)/,
        ],
        [
          { BUB_MODEL_STALL_TIMEOUT_SECONDS: "0" },
          /model_stall_timeout_seconds must be greater than 0, got 0/,
        ],
        [
          { BUB_MODEL_STALL_TIMEOUT_SECONDS: "soon" },
          /model_stall_timeout_seconds must be a number greater than 0, or null, got "soon"/,
        ],
      ] as const
    ) {
      const error = (() => {
        try {
          loadAgentSettings({ env });
        } catch (e) {
          return e;
        }
      })();
      assert.ok(BubError.isInstance(error), String(error));
      assert.equal(error.kind, "config");
      assert.match(error.message, message);
    }
  });

  test("a ModelRunner given a negative timeout directly throws a config BubError", () => {
    const client = new ProviderModelClient({});
    for (
      const settings of [{ modelTimeoutSeconds: -1 }, { modelStallTimeoutSeconds: Number.NaN }]
    ) {
      assert.throws(
        () => new ModelRunner(client, null, { model: "openai:gpt-test", ...settings }),
        (error: unknown) =>
          BubError.isInstance(error) && error.kind === "config" &&
          /must be a number greater than 0, or null/.test(error.message),
      );
    }
  });
});
