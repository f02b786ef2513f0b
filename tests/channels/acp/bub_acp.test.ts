/**
 * `bub acp` as an editor runs it: a real subprocess on stdin/stdout, driven by the official ACP
 * SDK's client app, against the mock model server: the protocol's session methods, a turn's
 * updates, cancel, and errors. Each test names the protocol behaviour.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import {
  BIN,
  childEnv,
  runCli,
  runtimeCommand,
  type TempDirs,
  tempDirs,
} from "../../cli/_spawn.ts";
import { editorModel, initialize, kinds, newSession, say, startEditor, turn } from "./_editor.ts";

describe("bub acp: sessions, turns and errors", () => {
  let dirs: TempDirs;
  let model: MockLlmServer;
  let env: Record<string, string>;

  before(async () => {
    dirs = tempDirs("bub-acp-test-");
    model = await MockLlmServer.start({ script: editorModel });
    env = { BUB_MODEL: "custom:x", BUB_API_BASE: model.url, BUB_API_KEY: "sk-editor" };
  });

  after(async () => {
    await model?.close();
    dirs?.remove();
  });

  test("initialize, session/new, a prompt with a file write: tool_call, diff, answer, end_turn", async () => {
    await using editor = startEditor(dirs, env);
    const { init, sessionId, response } = await editor.run(async (ctx) => {
      const init = await initialize(ctx);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      const response = await say(ctx, sessionId, "please write the file");
      return { init, sessionId, response };
    });
    assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
    assert.equal(init.agentCapabilities?.loadSession, true);
    assert.deepEqual(init.authMethods, []);
    assert.match(sessionId, /^acp:[0-9a-f-]{36}$/);
    assert.equal(response.stopReason, "end_turn");
    assert.deepEqual(kinds(editor.updates), [
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    const [call, end, chunk] = turn(editor.updates).map((notification) =>
      notification.update
    ) as unknown as [
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    const path = join(dirs.workspace, "hello.txt");
    assert.equal(call.kind, "edit");
    assert.deepEqual(call.locations, [{ path }]);
    assert.deepEqual(call.rawInput, { path: "hello.txt", content: "hi from bub\n" });
    assert.equal(end.toolCallId, call.toolCallId);
    assert.equal(end.status, "completed");
    assert.deepEqual(end.content, [{
      type: "diff",
      path,
      oldText: null,
      newText: "hi from bub\n",
    }]);
    assert.match(String((chunk.content as { text: string }).text), /^done: /);
    assert.equal(readFileSync(path, "utf8"), "hi from bub\n");
    assert.ok(editor.updates.every((notification) => notification.sessionId === sessionId));
  });

  test("session/cancel mid-tool: stopReason cancelled and the tool's process is gone", async () => {
    await using editor = startEditor(dirs, env);
    const pidFile = join(dirs.workspace, "slow.pid");
    const response = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      const prompt = say(ctx, sessionId, "something slow");
      while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      return await prompt;
    });
    assert.equal(response.stopReason, "cancelled");
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    let alive = true;
    for (let i = 0; i < 200 && alive; i++) {
      try {
        process.kill(pid, 0);
        await new Promise((resolve) => setTimeout(resolve, 25));
      } catch {
        alive = false;
      }
    }
    assert.equal(alive, false, `the bash process ${pid} still runs after the cancel`);
    assert.equal(existsSync(join(dirs.workspace, "late")), false);
    assert.equal(kinds(editor.updates)[0], "tool_call");
  });

  test("session/list and session/load after a restart: a Telegram session's history with its tool calls", async () => {
    // A conversation in another channel: session telegram:42 of the same workspace.
    const run = await runCli(
      dirs,
      ["run", "--channel", "telegram", "--chat-id", "42", "write it"],
      {
        env,
      },
    );
    assert.equal(run.code, 0, run.stderr);
    await using editor = startEditor(dirs, env);
    const { sessions } = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessions } = await ctx.request(acp.methods.agent.session.list, {});
      const telegram = sessions.find((session) => session.sessionId === "telegram:42");
      assert.ok(telegram, `telegram:42 not listed: ${JSON.stringify(sessions)}`);
      await ctx.request(acp.methods.agent.session.load, {
        sessionId: "telegram:42",
        cwd: dirs.workspace,
        mcpServers: [],
      });
      return { sessions };
    });
    const telegram = sessions.find((session) => session.sessionId === "telegram:42")!;
    assert.equal(telegram.title, "write it");
    assert.equal(telegram.cwd, dirs.workspace);
    assert.ok(telegram.updatedAt);
    assert.deepEqual(kinds(editor.updates), [
      "user_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    const [user, call, end] = turn(editor.updates).map((notification) =>
      notification.update
    ) as unknown as [
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    assert.deepEqual(user.content, { type: "text", text: "write it" });
    assert.equal(call.title, `fs.write ${join(dirs.workspace, "hello.txt")}`);
    assert.equal(end.status, "completed");
  });

  test("session/resume continues a session without replay (the model sees its history); session/close forgets it", async () => {
    let sessionId = "";
    {
      await using first = startEditor(dirs, env);
      await first.run(async (ctx) => {
        await initialize(ctx);
        ({ sessionId } = await newSession(ctx, dirs.workspace));
        await say(ctx, sessionId, "remember the word kumquat");
      });
    }
    await using again = startEditor(dirs, env);
    const before = model.requests.length;
    const refused = await again.run(async (ctx) => {
      await initialize(ctx);
      await ctx.request(acp.methods.agent.session.resume, { sessionId, cwd: dirs.workspace });
      await say(ctx, sessionId, "which word?");
      await ctx.request(acp.methods.agent.session.close, { sessionId });
      return await say(ctx, sessionId, "still there?").then(
        () => null,
        (error: acp.RequestError) => error,
      );
    });
    assert.deepEqual(kinds(again.updates), ["agent_message_chunk"], "resume replays nothing");
    const sent = JSON.stringify((model.requests[before]!.body as { messages: unknown }).messages);
    assert.match(sent, /kumquat/);
    assert.equal(refused?.code, -32602);
  });

  test("unknown sessions, unknown methods and malformed lines get JSON-RPC errors; the server stays up", async () => {
    await using editor = startEditor(dirs, env);
    await editor.run(async (ctx) => {
      await initialize(ctx);
      await assert.rejects(
        ctx.request(acp.methods.agent.session.prompt, {
          sessionId: "acp:nope",
          prompt: [{ type: "text", text: "hi" }],
        }),
        (error: acp.RequestError) => error.code === -32602 && /Unknown session/.test(error.message),
      );
      await assert.rejects(
        ctx.request(acp.methods.agent.session.load, {
          sessionId: "acp:never-seen",
          cwd: dirs.workspace,
          mcpServers: [],
        }),
        (error: acp.RequestError) => error.code === -32002,
      );
      await assert.rejects(
        ctx.request("bub/not-a-method", {}),
        (error: acp.RequestError) => error.code === -32601,
      );
    });
  });

  test("malformed JSON on stdin: a parse error, then the next request is answered", async () => {
    const [file, ...args] = runtimeCommand(BIN, ["acp"]);
    const child = spawn(file!, args, { cwd: dirs.workspace, env: childEnv(dirs, env) });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += String(chunk)));
    child.stdin.write("{not json\n");
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "initialize",
        params: { protocolVersion: 1 },
      }) +
        "\n",
    );
    while (!stdout.includes('"id":7')) await new Promise((resolve) => setTimeout(resolve, 25));
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(lines.find((line) => line.id === null)?.error?.code, -32700);
    assert.equal(lines.find((line) => line.id === 7)?.result?.protocolVersion, 1);
  });

  test("no model configured: initialize offers one auth method saying how; a prompt is refused", async () => {
    await using editor = startEditor(dirs, { BUB_MODEL: "", BUB_API_KEY: "", BUB_API_BASE: "" });
    const { init, error } = await editor.run(async (ctx) => {
      const init = await initialize(ctx);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      const error = await say(ctx, sessionId, "hi").then(
        () => null,
        (error: acp.RequestError) => error,
      );
      return { init, error };
    });
    assert.equal(init.authMethods?.length, 1);
    assert.ok((init.authMethods?.[0] as { description?: string }).description);
    assert.equal(error?.code, -32000);
  });
});
