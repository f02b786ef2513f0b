/**
 * The builtin turn hooks through `processInbound` (builtin spec §2, §16 items 137–141):
 * `loadState` / `saveState` lifespans, session model recovery, `provideModelOptions` and the
 * `onError` notice.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ChannelMessage } from "../../src/kernel/channel_message.ts";
import type { Envelope } from "../../src/kernel/envelope.ts";
import { fieldOf } from "../../src/kernel/envelope.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";

async function appendSwitch(
  fx: Awaited<ReturnType<typeof turnFixture>>,
  sessionId: string,
  name: string,
  data: Record<string, unknown>,
): Promise<void> {
  const tape = new Tape({ store: fx.bub.getTapeStore<TapeStore>()! }).sessionTape(
    sessionId,
    fx.home,
  );
  await tape.ensureBootstrapAnchor();
  await tape.appendEvent(name, data);
}

function message(
  content: string,
  extra: Partial<ConstructorParameters<typeof ChannelMessage>[0]> = {},
) {
  return new ChannelMessage({
    sessionId: "cli:local",
    channel: "cli",
    chatId: "local",
    content,
    ...extra,
  });
}

describe("loadState and saveState", () => {
  test("loadState enters the message lifespan before the model runs and saveState exits it after, with no error on success", async () => {
    const log: string[] = [];
    await using fx = await turnFixture({
      script: [() => {
        log.push("model");
        return mockReply.text("ok");
      }],
    });
    const lifespan = {
      enter: () => void log.push("enter"),
      exit: (error: unknown) =>
        void log.push(`exit:${error === undefined || error === null ? "none" : "error"}`),
    };
    const inbound = message("hi");
    (inbound as { lifespan: unknown }).lifespan = lifespan;
    await fx.turn(inbound);
    assert.deepEqual(log, ["enter", "model", "exit:none"]);
  });

  test("saveState exits the lifespan with the error that is failing the turn", async () => {
    const exits: unknown[] = [];
    await using fx = await turnFixture({ script: [mockReply.error(500, "model down")] });
    const inbound = message("hi");
    (inbound as { lifespan: unknown }).lifespan = {
      exit: (error: unknown) => void exits.push(error),
    };
    let thrown: unknown;
    await fx.turn(inbound).catch((error) => (thrown = error));
    assert.ok(thrown);
    assert.deepEqual(exits, [thrown]);
  });

  test("an AsyncDisposable lifespan (ChannelMessage.lifespan) is disposed once by saveState", async () => {
    let disposed = 0;
    await using fx = await turnFixture({ script: [mockReply.text("ok")] });
    const inbound = message("hi", {
      lifespan: { [Symbol.asyncDispose]: () => Promise.resolve(void disposed++) },
    });
    await fx.turn(inbound);
    assert.equal(disposed, 1);
  });

  test("loadState restores the latest model_switch and reasoning_effort_switch of the session tape; a fresh session gets no model", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("a"), mockReply.text("b"), mockReply.text("c")],
    });
    await appendSwitch(fx, "cli:local", "model_switch", { model: "openai:gpt-old" });
    await appendSwitch(fx, "cli:local", "model_switch", { model: "openai:gpt-new" });
    await appendSwitch(fx, "cli:local", "reasoning_effort_switch", { reasoning_effort: "high" });
    const switched = await fx.turn("hi");
    assert.equal(switched.state.model, "openai:gpt-new");
    assert.equal(switched.state.reasoning_effort, "high");
    assert.equal(fx.bodies()[0]!.model, "gpt-new");
    assert.equal(fx.bodies()[0]!.reasoning_effort, "high");

    const fresh = await fx.turn({ channel: "cli", chatId: "other", content: "hi" });
    assert.equal(fresh.sessionId, "cli:other");
    assert.equal("model" in fresh.state, false);
    assert.equal("reasoning_effort" in fresh.state, false);
    assert.equal(fx.bodies()[1]!.model, "gpt-test");

    const overridden = await fx.turn({
      channel: "cli",
      chatId: "local",
      content: "hi",
      context: { model: "openai:gpt-ctx" },
    });
    assert.equal(overridden.state.model, "openai:gpt-ctx");
    assert.equal(fx.bodies()[2]!.model, "gpt-ctx");
  });

  test("loadState puts the agent, the session id, the message context string and the context thread_id in the state", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("ok")] });
    const result = await fx.turn(message("hi", { context: { thread_id: "t-9", _private: 1 } }));
    assert.equal(result.state.session_id, "cli:local");
    assert.equal(result.state._runtime_agent, fx.builtin.runtime.agent);
    assert.equal(result.state.context, "thread_id=t-9|channel=$cli|chat_id=local");
    assert.equal(result.state._runtime_thread_id, "t-9");
  });
});

describe("provideModelOptions", () => {
  test("lists [model, ...fallbacks] deduplicated with current_model the first", async () => {
    await using fx = await turnFixture({
      script: [],
      env: {
        BUB_FALLBACK_MODELS: JSON.stringify([
          "openai:gpt-b",
          "openai:gpt-test",
          "openai:gpt-b",
          "anthropic:c",
        ]),
      },
    });
    const options = await fx.bub.getModelOptions({ sessionId: "cli:local" });
    assert.deepEqual(options?.models.map((m) => [m.id, m.name]), [
      ["openai:gpt-test", "openai:gpt-test"],
      ["openai:gpt-b", "openai:gpt-b"],
      ["anthropic:c", "anthropic:c"],
    ]);
    assert.equal(options?.currentModel, "openai:gpt-test");
  });
});

describe("onError", () => {
  test("a plain Error's notice carries its message, as Python's str(exc) would", async () => {
    const sent: Envelope[] = [];
    await using fx = await turnFixture({
      script: [],
      plugins: [{
        name: "broken-model",
        runModelStream: () => {
          throw new Error("boom");
        },
        dispatchOutbound: ({ message }: { message: Envelope }) => void sent.push(message),
      }],
    });
    await fx.turn({ channel: "cli", chatId: "local", content: "hi" }).catch(() => {});
    assert.equal(fieldOf(sent[0], "content", null), "An error occurred at stage 'turn': boom");
  });

  test("a failing turn sends \"An error occurred at stage 'turn': <error>\" with kind error to the message's channel and chat", async () => {
    const sent: Envelope[] = [];
    await using fx = await turnFixture({
      script: [mockReply.error(500, "model down")],
      plugins: [{
        name: "outbox",
        dispatchOutbound: ({ message }: { message: Envelope }) => void sent.push(message),
      }],
    });
    let thrown: unknown;
    await fx.turn({ channel: "telegram", chatId: "42", content: "hi" }).catch((
      error,
    ) => (thrown = error));
    assert.equal(sent.length, 1);
    const notice = sent[0]!;
    assert.equal(
      fieldOf(notice, "content", null),
      `An error occurred at stage 'turn': ${String(thrown)}`,
    );
    assert.match(String(fieldOf(notice, "content", null)), /model down/);
    assert.equal(fieldOf(notice, "kind", null), "error");
    assert.equal(fieldOf(notice, "channel", null), "telegram");
    assert.equal(fieldOf(notice, "chatId", null), "42");
    assert.equal(fieldOf(notice, "sessionId", null), "telegram:42");
  });

  test("onError without a message sends nothing", async () => {
    const sent: Envelope[] = [];
    await using fx = await turnFixture({
      script: [],
      plugins: [{
        name: "outbox",
        dispatchOutbound: ({ message }: { message: Envelope }) => void sent.push(message),
      }],
    });
    await fx.bub.hookRuntime.notifyError({
      stage: "somewhere",
      error: new Error("x"),
      message: null,
    });
    assert.deepEqual(sent, []);
  });
});
