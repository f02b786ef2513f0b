/**
 * `bub run`'s printing (runCommand), on every runtime: piped, the answer is the model's text as it
 * is (Markdown marks kept), streamed or not; on a terminal it is drawn as `bub chat` draws it —
 * Markdown rendered inside an Assistant panel, no `**` marks left on screen — streamed or not.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { BubFramework } from "../../src/builtin/framework.ts";
import { runCommand } from "../../src/builtin/run_command.ts";
import { MockLlmServer } from "../../src/testing/mock_llm_server.ts";

const ANSWER = "Here is **bold** text:\n\n- one\n- two\n";

async function run(options: { stream: boolean; terminal: boolean }): Promise<string> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "bub-run-test-")));
  await using server = await MockLlmServer.start({
    script: [{ text: ANSWER.match(/[\s\S]{1,5}/g)! }],
  });
  try {
    const bub = new BubFramework({
      home,
      configFile: join(home, "config.yml"),
      loadDotenv: false,
      workspace: home,
      builtin: {
        env: { BUB_MODEL: "openai:gpt-test", BUB_API_KEY: "sk-test", BUB_API_BASE: server.url },
      },
    });
    bub.loadBuiltinHooks();
    let out = "";
    const screen = new PassThrough();
    screen.on("data", (chunk) => (out += String(chunk)));
    await runCommand(bub, "hi", {
      channel: "cli",
      chatId: "local",
      senderId: "human",
      stream: options.stream,
      render: options.terminal ? screen : null,
    }, { out: (text) => (out += text), err: () => {} });
    return out;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe("bub run output", () => {
  for (const stream of [false, true]) {
    test(`piped (${stream ? "streamed" : "at the end"}): the answer's text as it is`, async () => {
      const out = await run({ stream, terminal: false });
      assert.equal(out.replace(/\n+$/, "\n"), `[cli:local]\n${ANSWER}`);
    });

    test(`on a terminal (${stream ? "streamed" : "at the end"}): Markdown rendered in a panel`, async () => {
      const out = await run({ stream, terminal: true });
      // A streamed answer redraws its growing block (a live region erased with ESC [J);
      // what stays on screen is what was written after the last erase.
      const last = out.split("\x1b[J").at(-1)!;
      assert.match(out, /── Assistant ─+/);
      assert.match(out, /Here is bold text:\n/);
      assert.match(last, /• one\n• two\n─+/);
      assert.doesNotMatch(last, /\*\*/, "no Markdown marks");
      assert.doesNotMatch(out, /\[cli:local\]/, "no target label");
    });
  }
});
