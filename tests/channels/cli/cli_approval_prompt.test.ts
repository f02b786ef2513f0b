/**
 * `bub chat`'s inline approval answer, through a real turn (builtin agent, mock model over HTTP,
 * CLI channel under a ChannelManager): a call held by an `approvals:` rule prints the request and
 * the prompt becomes `approve <id>? [y/n/always]`; typing `y` approves it, the tool runs once and
 * the answer is printed; `n` denies the next one and the model receives the denial.
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
import { defineTool } from "../../../src/tools/tool.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";
import { outputWatcher } from "./_output_watcher.ts";

describe("CLI approval prompt", () => {
  test("y approves the held call (it runs once) and n denies the next one", async () => {
    let runs = 0;
    const add = defineTool({
      name: "math.add",
      parameters: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => {
        runs++;
        return String(a + b);
      },
    });
    const input = new PassThrough();
    const output = new PassThrough();
    const waitFor = outputWatcher(output);
    let cli: CliChannel | null = null;
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("math_add", { a: 2, b: 3 }, { id: "c1" }),
        mockReply.text("The sum is 5."),
        mockReply.toolCall("math_add", { a: 1, b: 1 }, { id: "c2" }),
        mockReply.text("Fine, no sum."),
      ],
      env: { BUB_APPROVALS: JSON.stringify([{ tool: "math.*", reason: "sums need a yes" }]) },
      plugins: [
        definePlugin({ name: "math", tools: [add] }),
        definePlugin({
          name: "cli-test",
          provideChannels: ({ messageHandler }) => [
            cli = new CliChannel({
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
      await waitFor("sums need a yes");
      await waitFor(",deny ");
      assert.equal(runs, 0);
      await until(() => cli!.promptLabel.endsWith("? [y/n/always] "));
      input.write("y\n");
      await waitFor("The sum is 5.");
      assert.equal(runs, 1);
      input.write("add 1 and 1\n");
      await until(() => fx.server.requests.length === 3 && cli!.promptLabel.includes("[y/n"));
      input.write("n\n");
      await waitFor("Fine, no sum.");
      assert.equal(runs, 1);
      const messages = fx.bodies()[3]!.messages as { role: string; content: unknown }[];
      assert.match(String(messages.at(-1)!.content), /^denied by /);
      input.write(",quit\n");
      await loop;
    } finally {
      input.end();
      await loop.catch(() => {});
    }
  });
});

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
