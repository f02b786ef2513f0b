/**
 * `bub chat` resumes at start: a `bub run` in the chat's session (cli:local) is SIGKILLed while
 * its bash call runs; a new `bub chat` shows the interrupted turn's answer before anything is
 * typed (the model was told the call was interrupted; the command did not run again).
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  cleanupStack,
  runtimeCommand,
  startChild,
  tempDirs,
} from "../cli/_spawn.ts";

describe("bub chat resumes an interrupted turn at start", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("a bub run SIGKILLed during bash: the next bub chat shows the resumed answer before any input", async () => {
    const dirs = tempDirs("bub-chat-resume-");
    const calls = join(dirs.workspace, "calls.txt");
    const server = await MockLlmServer.start({
      script: [
        mockReply.toolCall("bash", { command: `echo $BUB_TOOL_CALL_ID >> ${calls}; sleep 30` }, {
          id: "call_1",
        }),
        mockReply.text("Recovered answer."),
      ],
    });
    cleanup.defer(async () => {
      await server.close();
      dirs.remove();
    });
    const env = childEnv(dirs, {
      BUB_MODEL: "custom:x",
      BUB_API_BASE: server.url,
      BUB_API_KEY: "sk-chat",
    });
    const run = startChild(runtimeCommand(BIN, ["run", "--stream", "write the file"]), {
      cwd: dirs.workspace,
      env,
    });
    cleanup.defer(() => run[Symbol.asyncDispose]());
    const deadline = Date.now() + 60_000;
    while (!existsSync(calls) || !readFileSync(calls, "utf8").includes("\n")) {
      assert.ok(Date.now() < deadline, `the bash call never ran: ${run.stderr}`);
      await sleep(50);
    }
    run.kill();
    await run.exited(10_000);

    const chat = startChild(runtimeCommand(BIN, ["chat"]), { cwd: dirs.workspace, env });
    cleanup.defer(() => chat[Symbol.asyncDispose]());
    await chat.waitFor("Recovered answer.", { timeoutMs: 60_000 });
    assert.equal(server.requests.length, 2);
    const messages =
      (server.requests[1]!.body as { messages: { role: string; content: unknown }[] }).messages;
    const tool = messages.filter((message) => message.role === "tool");
    assert.match(JSON.stringify(tool), /interrupted: unknown whether it took effect/);
    assert.equal(readFileSync(calls, "utf8"), "call_1\n");
    chat.write(",quit\n");
    await chat.waitFor("Bye.");
    assert.equal(await chat.exited(), 0);
    assert.equal(chat.stdout.match(/Recovered answer\./g)?.length, 1);
  });
});
