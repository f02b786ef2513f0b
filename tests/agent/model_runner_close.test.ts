/**
 * Review findings on the model runner's provider stream: it is closed when the step stream is
 * closed early, and cancelling a suspended step leaves no unhandled promise rejection.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { ModelRunner } from "../../src/agent/model_runner.ts";
import type {
  ModelClient,
  ModelEvent,
  ModelRequest,
  ModelStreamOptions,
} from "../../src/agent/model_client.ts";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";

/** A real provider client whose streams count how often they were finalized. */
function countingClient(inner: ModelClient): { client: ModelClient; finalized: () => number } {
  let finalized = 0;
  const client: ModelClient = {
    specificationVersion: inner.specificationVersion,
    async *stream(request: ModelRequest, options?: ModelStreamOptions): AsyncGenerator<ModelEvent> {
      try {
        yield* inner.stream(request, options);
      } finally {
        finalized++;
      }
    },
  };
  return { client, finalized: () => finalized };
}

async function freshTape(): Promise<Tape> {
  const tape = new Tape({ store: new InMemoryTapeStore() }).sessionTape("s", "/workspace");
  await tape.ensureBootstrapAnchor();
  return tape;
}

/** A slow streamed reply: ten one-letter chunks, 100 ms apart. */
const SLOW_REPLY = mockReply.text("abcdefghij", { chunks: 10, delayMs: 100 });

test("closing a step stream after its first text event closes the provider stream", async () => {
  await using server = await MockLlmServer.start({ script: [SLOW_REPLY] });
  const { client, finalized } = countingClient(
    new ProviderModelClient({ apiKey: "k", apiBase: server.url }),
  );
  const runner = new ModelRunner(client, null, { model: "openai:gpt-test" });
  const stream = runner.run({
    tape: await freshTape(),
    model: "openai:gpt-test",
    tools: [],
    systemPrompt: "",
    prompt: "hi",
    state: {},
  });
  const first = await stream.next();
  assert.deepEqual(first.value, { kind: "text", data: { delta: "a" } });
  await stream.close();
  assert.equal(finalized(), 1);
});

test("cancelling a step while it waits for its consumer rejects with the reason and leaves no unhandled rejection", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => {
    unhandled.push(reason);
  };
  process.on("unhandledRejection", onUnhandled);
  try {
    await using server = await MockLlmServer.start({ script: [SLOW_REPLY] });
    const runner = new ModelRunner(
      new ProviderModelClient({ apiKey: "k", apiBase: server.url }),
      null,
      { model: "openai:gpt-test" },
    );
    const controller = new AbortController();
    const stream = runner.run({
      tape: await freshTape(),
      model: "openai:gpt-test",
      tools: [],
      systemPrompt: "",
      prompt: "hi",
      state: {},
      signal: controller.signal,
    });
    await stream.next();
    const reason = new DOMException("stop", "AbortError");
    controller.abort(reason);
    await assert.rejects(stream.next(), (error) => error === reason);
    // Give a dropped provider promise time to reject.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});
