import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MemoryChannel } from "../../src/channels/memory_channel.ts";
import { ChannelManager } from "../../src/channels/manager.ts";
import { admitDecision } from "../../src/kernel/channel.ts";
import { contentOf } from "../../src/kernel/envelope.ts";
import { AsyncStreamEvents, type StreamEvent } from "../../src/kernel/stream.ts";
import type { Plugin } from "../../src/kernel/plugin.ts";
import { kernelFixture } from "../_helpers/kernel.ts";

const SESSIONS = 200;

function randomDelay(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, Math.floor(Math.random() * 4));
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/** Runs `perSession` messages for each of 200 sessions through a manager; returns per-session logs. */
async function run(perSession: number, mode: "text" | "stream") {
  using fx = kernelFixture({ builtin: true });
  let channel!: MemoryChannel;
  const modelCalls = new Map<string, string[]>();
  const record = (sessionId: string, prompt: unknown): void => {
    const calls = modelCalls.get(sessionId) ?? [];
    calls.push(String(prompt));
    modelCalls.set(sessionId, calls);
  };
  const plugin: Plugin = {
    name: "mock-model",
    provideChannels: ({ messageHandler }) => [
      channel = new MemoryChannel(messageHandler, {
        admit: () => admitDecision("follow_up", "in order"),
      }),
    ],
    buildPrompt: ({ message }) => contentOf(message),
    ...(mode === "text"
      ? {
        runModel: async ({ prompt, sessionId, signal }) => {
          record(sessionId, prompt);
          await randomDelay(signal);
          return `answer to ${String(prompt)}`;
        },
      }
      : {
        runModelStream: ({ prompt, sessionId, signal }) => {
          record(sessionId, prompt);
          async function* events(): AsyncGenerator<StreamEvent> {
            await randomDelay(signal);
            yield { kind: "text", data: { delta: "answer to " } };
            await randomDelay(signal);
            yield { kind: "text", data: { delta: String(prompt) } };
          }
          return new AsyncStreamEvents(events());
        },
      }),
  };
  fx.framework.register(plugin);
  const manager = new ChannelManager(fx.framework, {
    enabledChannels: "memory",
    streamOutput: mode === "stream",
  });
  const stop = new AbortController();
  const running = manager.listenAndRun({ signal: stop.signal });
  try {
    for (let i = 0; i < perSession; i++) {
      await Promise.all(
        Array.from(
          { length: SESSIONS },
          (_, s) => channel.push({ content: `s${s}-m${i}`, chatId: String(s) }),
        ),
      );
    }
    const sent = await channel.waitForSent(SESSIONS * perSession, {
      signal: AbortSignal.timeout(60_000),
    });
    return { sent, modelCalls, streams: channel.streams.length };
  } finally {
    stop.abort();
    await running;
  }
}

function check(result: Awaited<ReturnType<typeof run>>, perSession: number): void {
  const { sent, modelCalls } = result;
  assert.equal(sent.length, SESSIONS * perSession, "no answer lost");
  const contents = sent.map((message) => message.content);
  assert.equal(new Set(contents).size, contents.length, "no answer duplicated");
  const bySession = new Map<string, string[]>();
  for (const message of sent) {
    const list = bySession.get(message.sessionId) ?? [];
    list.push(message.content);
    bySession.set(message.sessionId, list);
  }
  assert.equal(bySession.size, SESSIONS);
  for (let s = 0; s < SESSIONS; s++) {
    const expected = Array.from({ length: perSession }, (_, i) => `s${s}-m${i}`);
    assert.deepEqual(
      modelCalls.get(`memory:${s}`),
      expected,
      `model calls of session ${s} in order`,
    );
    assert.deepEqual(
      bySession.get(`memory:${s}`),
      expected.map((prompt) => `answer to ${prompt}`),
      `answers of session ${s} in order`,
    );
  }
}

describe("ChannelManager under load", () => {
  test("200 concurrent sessions with follow_up admission: none lost, none duplicated, per-session order kept", async () => {
    check(await run(5, "text"), 5);
  });

  test("200 concurrent streaming sessions: none lost, none duplicated, per-session order kept", async () => {
    const result = await run(3, "stream");
    check(result, 3);
    assert.equal(result.streams, SESSIONS * 3, "every turn streamed through the channel");
  });
});
