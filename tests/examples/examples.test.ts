/** The examples run as real subprocesses of the current runtime (Deno, Node or Bun). */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { cleanupStack, ROOT, runCli, runScript, tempDirs } from "../cli/_spawn.ts";

const example = (name: string): string => join(ROOT, "examples", name);

interface WireMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
}

describe("examples", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("examples/echo.ts prints [echo] hi", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runScript(example("echo.ts"), dirs, ["hi"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "[echo] hi\n");
  });

  test("examples/policy_plugin.ts loaded from config.yml denies rm -rf: the command never runs and the model sees the denial", async () => {
    const dirs = tempDirs();
    const victim = join(dirs.workspace, "x");
    mkdirSync(victim);
    const marker = join(victim, "marker.txt");
    writeFileSync(marker, "still here");
    const server = await MockLlmServer.start({
      script: [
        mockReply.toolCall("bash", { command: `rm -rf ${victim}` }),
        mockReply.text("I was not allowed to."),
      ],
    });
    cleanup.defer(async () => {
      await server.close();
      dirs.remove();
    });
    dirs.writeConfig(`plugins:\n  - ${JSON.stringify(example("policy_plugin.ts"))}\n`);
    const result = await runCli(dirs, ["run", "please clean up"], {
      env: { BUB_MODEL: "custom:x", BUB_API_BASE: server.url, BUB_API_KEY: "sk-policy" },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(existsSync(marker), true, "the denied command must not run");
    assert.equal(result.stdout, "[cli:local]\nI was not allowed to.\n");
    assert.equal(server.requests.length, 2);
    const messages = (server.requests[1]!.body as { messages: WireMessage[] }).messages;
    const toolResult = messages.find((message) => message.role === "tool");
    assert.ok(toolResult, "the model gets a tool result");
    assert.match(JSON.stringify(toolResult.content), /Command refused by policy: rm -rf/);
  });

  test("examples/custom_store.ts runs a turn with its SQLite store and reports the entry count", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    // The example makes its home with mkdtemp under TMPDIR, which is inside the test's dirs.
    const result = await runScript(example("custom_store.ts"), dirs, []);
    assert.equal(result.code, 0, result.stderr);
    const match = /^\*\*You said:\*\* hello\n(\d+) entries in (.+tapes\.sqlite)\n$/.exec(
      result.stdout,
    );
    assert.ok(match, result.stdout);
    assert.ok(Number(match[1]) >= 5, `the agent's turn is on the SQLite tape: ${result.stdout}`);
    assert.ok(match[2]!.startsWith(dirs.tmp), result.stdout);
    assert.equal(existsSync(match[2]!), true, "the SQLite database was created");
  });

  test("examples/chat.ts --demo answers piped lines, runs a tool, and prints Bye.", async () => {
    const dirs = tempDirs();
    cleanup.defer(() => dirs.remove());
    const result = await runScript(example("chat.ts"), dirs, ["--demo"], {
      input: "hello there\nrun echo demo-output\n,quit\n",
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /You said: hello there/);
    assert.match(result.stdout, /The command printed:[\s\S]*demo-output/);
    assert.match(result.stdout, /Bye\.\n$/);
  });
});
