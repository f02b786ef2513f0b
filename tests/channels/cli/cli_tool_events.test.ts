/**
 * A real turn (builtin agent, mock model over HTTP, CLI channel under a ChannelManager): the tool
 * call the model asks for is shown in the CLI output from the turn's `tool_start` / `tool_end`
 * events, with no tool-call reporter installed anywhere.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { z } from "zod";
import { CliChannel } from "../../../src/channels/cli/cli_channel.ts";
import { ChannelManager } from "../../../src/channels/manager.ts";
import { definePlugin } from "../../../src/kernel/plugin.ts";
import { mockReply } from "../../../src/testing/mock_llm_server.ts";
import { currentToolCallReporter } from "../../../src/tools/reporter.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { outputWatcher } from "./_output_watcher.ts";

describe("CLI tool-call display from turn events", () => {
  test("a tool call of a real turn prints its call line and its completion line", async () => {
    const reportersSeen: unknown[] = [];
    const add = defineTool({
      name: "math.add",
      parameters: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => {
        reportersSeen.push(currentToolCallReporter());
        return String(a + b);
      },
    });
    const input = new PassThrough();
    const output = new PassThrough();
    const waitFor = outputWatcher(output);
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("math_add", { a: 2, b: 3 }, { id: "c1" }),
        mockReply.text("The sum is 5."),
      ],
      plugins: [
        definePlugin({ name: "math", tools: [add] }),
        definePlugin({
          name: "cli-test",
          provideChannels: ({ messageHandler }) => [
            new CliChannel({
              handler: messageHandler,
              workspace: fx.home,
              home: join(fx.home, "cli-home"),
              input,
              output,
            }),
          ],
        }),
      ],
    });
    const manager = new ChannelManager(fx.bub, { enabledChannels: "cli", streamOutput: true });
    const loop = manager.listenAndRun();
    try {
      await waitFor("Bub");
      input.write("add 2 and 3\n");
      await waitFor("The sum is 5.");
      await waitFor("● math.add(a: 2, b: 3)\n  ⎿ completed in ");
      assert.deepEqual(reportersSeen, [null], "no AsyncLocalStorage reporter was installed");
      const ends = fx.turns[0]!.allEvents.filter((event) => event.kind === "tool_end");
      assert.equal(ends.length, 1);
      input.write(",quit\n");
      await loop;
    } finally {
      input.end();
      await loop.catch(() => {});
    }
  });
});
