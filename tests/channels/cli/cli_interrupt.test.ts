import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { CliChannel } from "../../../src/channels/cli/cli_channel.ts";
import { ChannelManager } from "../../../src/channels/manager.ts";
import type { Plugin } from "../../../src/kernel/plugin.ts";
import { AsyncStreamEvents, type StreamEvent } from "../../../src/kernel/stream.ts";
import { outputWatcher } from "./_output_watcher.ts";
import { deferred, kernelFixture, untilAborted } from "../../_helpers/kernel.ts";

describe("CLI Ctrl-C under a ChannelManager (builtin §10.4)", () => {
  test("a line typed after Ctrl-C while the cancelled turn is still winding down runs as its own turn (it is not steered into the dying turn and lost)", async () => {
    using fx = kernelFixture({ builtin: true });
    const input = new PassThrough();
    const output = new PassThrough();
    const waitFor = outputWatcher(output);
    const unwind = deferred<void>();
    const aborted = deferred<void>();
    const prompts: string[] = [];
    // deno-lint-ignore prefer-const -- assigned once, after the plugin that closes over it
    let manager!: ChannelManager;
    const plugin: Plugin = {
      name: "cli-interrupt-test",
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
        const first = prompts.length === 1;
        async function* events(): AsyncGenerator<StreamEvent> {
          yield { kind: "text", data: { delta: first ? "## Working\n\n- a\n" : "fresh answer" } };
          if (first) {
            try {
              await untilAborted(signal);
            } catch (error) {
              // Like a network stream whose abort takes a while to come through.
              aborted.resolve();
              await unwind.promise;
              throw error;
            }
          }
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
      input.write("slow question\n");
      await waitFor("## Working");
      const cli = manager.channels.get("cli") as CliChannel;
      cli.interrupt();
      await aborted.promise;
      input.write("after ctrl-c\n");
      await waitFor("› after ctrl-c");
      unwind.resolve();
      await waitFor("fresh answer");
      assert.equal(prompts.length, 2);
      assert.ok(prompts[1]!.includes("after ctrl-c"), prompts[1]);
      input.write(",quit\n");
      await loop;
    } finally {
      unwind.resolve();
      input.end();
      await loop.catch(() => {});
    }
  });
});
