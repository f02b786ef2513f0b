import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { CliChannel } from "../../../src/channels/cli/cli_channel.ts";
import { ChannelManager } from "../../../src/channels/manager.ts";
import type { Plugin } from "../../../src/kernel/plugin.ts";
import { AsyncStreamEvents, type StreamEvent } from "../../../src/kernel/stream.ts";
import { outputWatcher, WAIT_MS } from "./_output_watcher.ts";
import { deferred, kernelFixture, untilAborted } from "../../_helpers/kernel.ts";

describe("CLI channel under a ChannelManager (builtin §10.4, §10.6 bub chat)", () => {
  test("a typed line runs a streamed turn, a second line steers it, Ctrl-C cancels it, ,quit ends the loop", async () => {
    using fx = kernelFixture({ builtin: true });
    const input = new PassThrough();
    const output = new PassThrough();
    const waitFor = outputWatcher(output);
    const gate = deferred<void>();
    const prompts: string[] = [];
    let cancelled = false;
    // deno-lint-ignore prefer-const -- assigned once, after the plugin that closes over it
    let manager!: ChannelManager;
    const plugin: Plugin = {
      name: "cli-test",
      provideChannels: ({ messageHandler }) => [
        new CliChannel({
          handler: messageHandler,
          workspace: fx.dir,
          home: join(fx.dir, "home"),
          input,
          output,
          onInterrupt: (sessionId) => manager.quit(sessionId),
        }),
      ],
      runModelStream: ({ prompt, signal }) => {
        prompts.push(String(prompt));
        async function* events(): AsyncGenerator<StreamEvent> {
          yield { kind: "text", data: { delta: "## Answer\n\n- one\n" } };
          if (prompts.length === 1) {
            try {
              await Promise.race([gate.promise, untilAborted(signal)]);
            } catch (error) {
              cancelled = true;
              throw error;
            }
          }
          yield { kind: "text", data: { delta: "- two" } };
          yield { kind: "final", data: { ok: true } };
        }
        return new AsyncStreamEvents(events());
      },
    };
    fx.framework.register(plugin);
    manager = new ChannelManager(fx.framework, { enabledChannels: "cli", streamOutput: true });
    const loop = manager.listenAndRun();
    try {
      await waitFor("Bub");
      input.write("first question\n");
      await waitFor("## Answer");
      const cli = manager.channels.get("cli") as CliChannel;
      assert.equal(cli.generating, true, "the lifespan marks the turn as running");
      input.write("and also this\n");
      await waitFor("and also this (steering)");
      cli.interrupt();
      await waitFor("Cancelling the running turn.");
      const deadline = Date.now() + WAIT_MS;
      while (cli.generating && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.equal(cancelled, true, "the model stream saw the turn's signal abort");
      assert.equal(cli.generating, false);
      await waitFor("• one\n──");
      input.write("second question\n");
      await waitFor("• two");
      assert.equal(prompts.length >= 2, true);
      assert.ok(prompts[0]!.includes("first question"));
      assert.ok(prompts.at(-1)!.includes("second question"));
      input.write(",quit\n");
      await loop;
      await waitFor("Bye.");
    } finally {
      gate.resolve();
      input.end();
      await loop.catch(() => {});
    }
  });
});
