import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  runCli,
  runtimeCommand,
  startChild,
  tempDirs,
} from "./_spawn.ts";

const hasScript = spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

describe("bub chat through piped stdio", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("a typed line runs a full turn against the model, the streamed answer is printed, and ,quit prints Bye.", async () => {
    const dirs = tempDirs();
    const server = await MockLlmServer.start({
      script: [mockReply.text("## Result\n\nThe **answer** is 42.", { chunks: 5 })],
    });
    cleanup.defer(async () => {
      await server.close();
      dirs.remove();
    });
    const result = await runCli(dirs, ["chat"], {
      input: "what is the answer?\n,quit\n",
      env: { BUB_MODEL: "custom:x", BUB_API_BASE: server.url, BUB_API_KEY: "sk-chat" },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /› what is the answer\?/);
    assert.match(result.stdout, /── Assistant ─+\n## Result\n\nThe answer is 42\.\n─+\nBye\.\n$/);
    assert.equal(server.requests.length, 1);
    const messages =
      (server.requests[0]!.body as { messages: { role: string; content: unknown }[] }).messages;
    assert.match(JSON.stringify(messages.filter((m) => m.role === "user")), /what is the answer\?/);
  });

  test("with no model configured the chat says what to set and exits 1", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runCli(dirs, ["chat"], { input: "hi\n" });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /BUB_MODEL/);
    assert.match(result.stderr, /BUB_API_KEY/);
    assert.match(result.stderr, /BUB_API_BASE/);
  });
});

describe("bub chat under a pseudo-terminal", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test(
    "Ctrl-C cancels the running turn (the slow answer never completes) and the next line gets its answer",
    {
      skip: !hasScript ? "script (util-linux) is not installed" : false,
    },
    async () => {
      const dirs = tempDirs();
      const server = await MockLlmServer.start({
        script: [
          mockReply.text(`first part. ${"more words ".repeat(30)}THE-END`, {
            chunks: 30,
            delayMs: 1000,
          }),
          mockReply.text("second answer"),
        ],
      });
      const command = runtimeCommand(BIN, ["chat"]).map(shellQuote).join(" ");
      const child = startChild(["script", "-q", "-e", "-f", "-c", command, "/dev/null"], {
        cwd: dirs.workspace,
        env: childEnv(dirs, {
          BUB_MODEL: "custom:x",
          BUB_API_BASE: server.url,
          BUB_API_KEY: "sk-pty",
          TERM: "xterm",
        }),
      });
      cleanup.defer(async () => {
        if (child.process.exitCode === null) child.process.kill("SIGTERM");
        await child.exited(5000).catch(() => child.kill());
        await server.close();
        dirs.remove();
      });
      await child.waitFor("workspace >");
      child.write("hello\r");
      await child.waitFor("first part.");
      child.write("\x03");
      await child.waitFor("Cancelling the running turn.");
      child.write("again\r");
      // Were the first turn still running, "again" would be steered into it and the answer would
      // only come after its 30-second stream.
      await child.waitFor("second answer", { timeoutMs: 10_000 });
      assert.equal(server.requests.length, 2);
      assert.doesNotMatch(child.stdout, /THE-END/);
      child.write(",quit\r");
      await child.waitFor("Bye.");
      assert.equal(await child.exited(), 0);
    },
  );
});
