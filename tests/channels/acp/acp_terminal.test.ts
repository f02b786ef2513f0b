/**
 * `bub acp` with an editor that offers terminals (`clientCapabilities.terminal`): the bash
 * tool's commands run in the editor's terminals (`terminal/*`, which the test editor serves by
 * really spawning them, marked `ACP_TEST_EDITOR=editor`), the tool call shows the terminal, the
 * model gets the same result as from a local run, and a cancel kills and releases the terminal.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import * as acp from "@agentclientprotocol/sdk";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { type TempDirs, tempDirs } from "../../cli/_spawn.ts";
import {
  editorModel,
  initialize,
  newSession,
  say,
  startEditor,
  type Terminals,
  turn,
  type WireMessage,
} from "./_editor.ts";

describe("bub acp: bash through the editor's terminals", () => {
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

  /** The tool messages the model got since request `from`. */
  const toolResults = (from: number) =>
    model.requests.slice(from).flatMap((request) =>
      (request.body as { messages: WireMessage[] }).messages.filter((m) => m.role === "tool")
        .map((m) => String(m.content))
    );

  /** Runs `prompts` in one session of an editor with (or without) terminals. */
  async function run(prompts: string[], terminals: Terminals | null) {
    await using editor = startEditor(dirs, env, undefined, undefined, terminals ?? undefined);
    const from = model.requests.length;
    const stops = await editor.run(async (ctx) => {
      await initialize(ctx, false, terminals !== null);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      const stops: string[] = [];
      for (const text of prompts) stops.push((await say(ctx, sessionId, text)).stopReason);
      return stops;
    });
    return { stops, results: [...new Set(toolResults(from))], updates: turn(editor.updates) };
  }

  test("the editor runs the command (terminal/create … release), the tool call shows its terminal, the model gets the local result shape", async () => {
    const terminals: Terminals = { log: [] };
    const remote = await run(["who runs commands?", "a failing command"], terminals);
    const local = await run(["who runs commands?", "a failing command"], null);
    assert.deepEqual(remote.stops, ["end_turn", "end_turn"]);
    const [ran, failed] = remote.results;
    assert.match(String(ran), /^run by editor\ncall \S+\n/, "run by the editor, with the call id");
    assert.equal(String(ran).split("\n")[2], dirs.workspace);
    // Same shape as a local run: only who ran it differs.
    assert.deepEqual(
      remote.results.map((text) => text.replaceAll("editor", "bub")),
      local.results,
    );
    assert.match(String(failed), /3/);

    const created = terminals.log.filter((entry) => entry.method === "terminal/create");
    assert.equal(created.length, 2);
    const params = created[0]!.params as {
      command: string;
      args: string[];
      cwd: string;
      env: { name: string; value: string }[];
      outputByteLimit: number;
    };
    assert.equal(params.command, "bash");
    assert.equal(params.args[0], "-c");
    assert.match(params.args[1]!, /ACP_TEST_EDITOR/);
    assert.equal(params.cwd, dirs.workspace);
    assert.ok(params.outputByteLimit > 0);
    const callId = params.env.find((v) => v.name === "BUB_TOOL_CALL_ID")?.value;
    assert.ok(callId && String(ran).includes(`call ${callId}`));
    for (const { terminalId } of created) {
      const methods = terminals.log.filter((e) => e.terminalId === terminalId).map((e) => e.method);
      assert.ok(methods.includes("terminal/wait_for_exit"), methods.join());
      assert.equal(methods.at(-1), "terminal/release", "released last");
      assert.equal(methods.filter((m) => m === "terminal/release").length, 1);
    }
    // The tool call shows the terminal (before it is released), and its end keeps it.
    const shown = remote.updates.map((n) => n.update as Record<string, unknown>)
      .filter((u) => u.toolCallId === callId);
    const content = shown.map((u) => JSON.stringify(u.content ?? null));
    assert.ok(content.some((c) => c.includes('"terminal"')), content.join("\n"));
    // (Both prompts' calls are call_1: the mock numbers a reply's calls.)
    const [end, fail] = shown.filter((u) => u.status !== undefined && u.status !== "in_progress");
    assert.equal(end?.status, "completed");
    assert.deepEqual(end?.content, [{ type: "terminal", terminalId: created[0]!.terminalId }]);
    assert.equal(fail?.status, "failed");
    const [terminal, message] = fail?.content as Record<string, unknown>[];
    assert.deepEqual(terminal, { type: "terminal", terminalId: created[1]!.terminalId });
    assert.match(JSON.stringify(message), /failed/);
    assert.equal(existsSync(join(dirs.workspace, "guarded.txt")), false);
  });

  test("a background shell runs in an editor's terminal too: bash.kill kills and releases it", async () => {
    const terminals: Terminals = { log: [] };
    const { stops, results } = await run(["start a background job"], terminals);
    assert.deepEqual(stops, ["end_turn"]);
    const [created] = terminals.log.filter((entry) => entry.method === "terminal/create");
    assert.ok(created, "the editor was asked to run the background shell");
    const methods = terminals.log.filter((e) => e.terminalId === created.terminalId)
      .map((e) => e.method);
    const kill = methods.indexOf("terminal/kill");
    assert.ok(kill >= 0 && methods.indexOf("terminal/release") > kill, methods.join());
    assert.match(String(results[0]), /^Shell started, shell_id: bash-/);
    assert.match(String(results[1]), /status: exited\nexit_code: 137/);
    // The editor's own record of the process (a bg.pid file written by the command raced the kill).
    const pid = Number(created.params.pid);
    assert.ok(pid > 0, "the editor spawned a process");
    assert.throws(() => process.kill(pid, 0), "the background shell still runs");
  });

  test("session/cancel mid-command: terminal/kill then terminal/release, the editor's process is gone, cancelled", async () => {
    const terminals: Terminals = { log: [] };
    await using editor = startEditor(dirs, env, undefined, undefined, terminals);
    const pidFile = join(dirs.workspace, "slow.pid");
    const created = () => terminals.log.find((entry) => entry.method === "terminal/create");
    const methods = () =>
      terminals.log.filter((e) => e.terminalId === created()?.terminalId).map((e) => e.method);
    const response = await editor.run(async (ctx) => {
      await initialize(ctx, false, true);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      const prompt = say(ctx, sessionId, "something slow");
      while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
      const response = await prompt;
      // On a loaded machine the release may come just after the prompt's answer: stay connected.
      for (let i = 0; i < 800 && !methods().includes("terminal/release"); i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return response;
    });
    assert.equal(response.stopReason, "cancelled");
    assert.ok(created(), "the editor was asked to run the command");
    const kill = methods().indexOf("terminal/kill");
    assert.ok(kill >= 0, methods().join());
    assert.ok(methods().indexOf("terminal/release") > kill, methods().join());
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    assert.throws(() => process.kill(pid, 0), "the command's process still runs");
    assert.equal(existsSync(join(dirs.workspace, "late")), false);
  });
});
