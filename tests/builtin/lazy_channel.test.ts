import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { LazyChannel } from "../../src/builtin/lazy_channel.ts";
import { LazyCliChannel } from "../../src/builtin/lazy_cli_channel.ts";
import { Channel, Interface } from "../../src/channels/channel.ts";
import { selectChannels } from "../../src/channels/_selection.ts";
import { MemoryChannel } from "../../src/channels/memory_channel.ts";
import { ChannelMessage } from "../../src/kernel/channel_message.ts";
import type { StreamEvent } from "../../src/kernel/stream.ts";
import { outputWatcher } from "../channels/cli/_output_watcher.ts";

/** A LazyChannel over a MemoryChannel, counting how often it was loaded. */
function lazyMemory(enabled = true): { channel: LazyChannel; loads: () => number } {
  let loads = 0;
  const channel = new LazyChannel({
    name: "memory",
    enabled: () => enabled,
    needsDebounce: true,
    load: () => {
      loads++;
      return Promise.resolve(new MemoryChannel(() => Promise.resolve(), { name: "memory" }));
    },
  });
  return { channel, loads: () => loads };
}

async function* events(...deltas: string[]): AsyncGenerator<StreamEvent> {
  for (const delta of deltas) yield { kind: "text", data: { delta } };
}

describe("LazyChannel: the implementation is loaded on first use", () => {
  test("name, enabled and needsDebounce are answered without loading; stop before start loads nothing", async () => {
    const { channel, loads } = lazyMemory(false);
    assert.equal(channel.name, "memory");
    assert.equal(channel.enabled, false);
    assert.equal(channel.needsDebounce, true);
    assert.ok(channel instanceof Channel);
    assert.ok(!(channel instanceof Interface), "a plain channel: `all` selects it");
    await channel.stop();
    assert.equal(loads(), 0);
    assert.equal(channel.loaded, null);
  });

  test("start, send, streamEvents and admitMessage go to one implementation, loaded once", async () => {
    const { channel, loads } = lazyMemory();
    await channel.start(new AbortController());
    const memory = channel.loaded as MemoryChannel;
    assert.ok(memory instanceof MemoryChannel);
    await channel.send(new ChannelMessage({ sessionId: "s", channel: "memory", content: "hi" }));
    assert.deepEqual(memory.sent.map((message) => message.content), ["hi"]);
    const seen: StreamEvent[] = [];
    const message = { channel: "memory", chatId: "c", content: "q" };
    for await (const event of channel.streamEvents(message, events("a", "b"))) seen.push(event);
    assert.deepEqual(seen.map((event) => (event.data as { delta?: string }).delta), ["a", "b"]);
    assert.equal(memory.streams.length, 1, "the stream went through the implementation");
    const turn = { isRunning: false, sessionId: "s" } as never;
    assert.equal(await channel.admitMessage({ sessionId: "s", message, turn }), null);
    await channel.stop();
    assert.deepEqual(memory.calls, { start: 1, stop: 1 });
    assert.equal(loads(), 1);
  });

  test("a failed load is not cached: the next use tries again", async () => {
    let attempts = 0;
    const channel = new LazyChannel({
      name: "flaky",
      enabled: () => true,
      needsDebounce: false,
      load: () => {
        attempts++;
        if (attempts === 1) return Promise.reject(new Error("cannot load flaky"));
        return Promise.resolve(new MemoryChannel(() => Promise.resolve(), { name: "flaky" }));
      },
    });
    await assert.rejects(channel.start(new AbortController()), /cannot load flaky/);
    await channel.start(new AbortController());
    assert.equal(attempts, 2);
    assert.ok(channel.loaded instanceof MemoryChannel);
  });
});

describe("LazyCliChannel: the builtin cli channel imports the REPL when it starts", () => {
  test("it is an Interface (`all` leaves it out) and nothing is created before start", () => {
    const cli = new LazyCliChannel({ handler: () => Promise.resolve(), workspace: ".", home: "." });
    assert.equal(cli.name, "cli");
    assert.ok(cli instanceof Interface);
    assert.equal(cli.loaded, null);
    cli.interrupt();
    assert.equal(cli.sessionId, "cli_session");
    const selected = selectChannels(new Map<string, Channel>([["cli", cli]]), ["all"]);
    assert.deepEqual(selected, []);
  });

  test("setMetadata before start reaches the REPL; typed lines carry that session", async () => {
    const root = await mkdtemp(join(tmpdir(), "bub-lazy-cli-"));
    const input = new PassThrough();
    const output = new PassThrough();
    const waitFor = outputWatcher(output);
    const received: ChannelMessage[] = [];
    const cli = new LazyCliChannel({
      handler: (message) => {
        received.push(message as ChannelMessage);
        return Promise.resolve();
      },
      workspace: join(root, "project"),
      home: join(root, "home"),
      model: "openai:test-model",
      input,
      output,
    });
    try {
      cli.setMetadata({ sessionId: "chosen", chatId: "room" });
      assert.equal(cli.sessionId, "chosen");
      await cli.start(new AbortController());
      assert.equal(cli.loaded?.sessionId, "chosen");
      assert.equal(cli.loaded?.chatId, "room");
      await waitFor("Bub");
      input.write("hello\n");
      for (let i = 0; received.length === 0 && i < 500; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(received[0]?.sessionId, "chosen");
      assert.equal(received[0]?.content, "hello");
      cli.setMetadata({ sessionId: "later" });
      assert.equal(cli.sessionId, "later");
    } finally {
      input.end();
      await cli.stop();
      await rm(root, { recursive: true, force: true });
    }
  });
});
