/**
 * `bub acp` permissions are approvals: held calls become permission requests, the editor's
 * answers are the approval decisions, and an unanswered one stays pending for other channels.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { runCli, type TempDirs, tempDirs } from "../../cli/_spawn.ts";
import {
  type Answers,
  editorModel,
  initialize,
  newSession,
  say,
  startEditor,
  type WireMessage,
} from "./_editor.ts";

describe("bub acp: permissions", () => {
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

  test("permissions are approvals: allow once runs the held call once, reject gives the model the denial", async () => {
    const guarded = { ...env, BUB_APPROVALS: '[{"tool":"bash","reason":"runs commands"}]' };
    const file = join(dirs.workspace, "guarded.txt");
    rmSync(file, { force: true });
    const answers: Answers = { optionIds: ["allow_once", "reject_once"], asked: [] };
    await using editor = startEditor(dirs, guarded, undefined, answers);
    const before = model.requests.length;
    const stops = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      const stops: string[] = [];
      for (const text of ["run the guarded thing", "run the guarded thing again"]) {
        const response = await say(ctx, sessionId, text);
        stops.push(response.stopReason);
      }
      return stops;
    });
    assert.deepEqual(stops, ["end_turn", "end_turn"]);
    assert.equal(answers.asked.length, 2);
    const call = answers.asked[0]!.toolCall as {
      title?: string;
      kind?: string;
      rawInput?: unknown;
    };
    assert.equal(call.title, "bash: echo ran >> guarded.txt (runs commands)");
    assert.equal(call.kind, "execute");
    assert.deepEqual(answers.asked[0]!.options.map((o) => o.kind), [
      "allow_once",
      "allow_always",
      "reject_once",
    ]);
    assert.equal(readFileSync(file, "utf8"), "ran\n", "allowed once: ran exactly once");
    const toolResults = model.requests.slice(before).flatMap((request) =>
      (request.body as { messages: WireMessage[] }).messages.filter((m) => m.role === "tool")
    ).map((message) => String(message.content));
    assert.ok(
      toolResults.some((text) => /denied by human: rejected in the editor/.test(text)),
      JSON.stringify(toolResults),
    );
  });

  test("ask mode holds every tool; allow always is sticky; an unanswered request stays pending for another channel", async () => {
    const file = join(dirs.workspace, "guarded.txt");
    rmSync(file, { force: true });
    const answers: Answers = { optionIds: ["allow_always", null], asked: [] };
    let sessionId = "";
    {
      await using editor = startEditor(dirs, env, undefined, answers);
      await editor.run(async (ctx) => {
        await initialize(ctx);
        const created = await newSession(ctx, dirs.workspace);
        sessionId = created.sessionId;
        assert.deepEqual(created.modes?.availableModes.map((m) => m.id), ["default", "ask"]);
        await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "ask" });
        for (const text of ["run the guarded thing", "run the guarded thing twice"]) {
          await say(ctx, sessionId, text);
        }
        // A write is another tool: it asks again, and the editor does not answer.
        const response = await say(ctx, sessionId, "please write the file");
        assert.equal(response.stopReason, "end_turn");
      });
    }
    assert.equal(answers.asked.length, 2, "always: the second bash call did not ask");
    assert.equal(readFileSync(file, "utf8"), "ran\nran\n");
    const held = answers.asked[1]!.toolCall as { rawInput?: { path?: string } };
    assert.equal(held.rawInput?.path, "hello.txt");
    const listed = await runCli(dirs, ["run", "--session-id", sessionId, ",approvals"], { env });
    const id = /\b([a-z2-7]{10})\b/.exec(listed.stdout)?.[1];
    assert.ok(id, listed.stdout);
    rmSync(join(dirs.workspace, "hello.txt"), { force: true });
    const approved = await runCli(dirs, ["run", "--session-id", sessionId, `,approve ${id}`], {
      env,
    });
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(readFileSync(join(dirs.workspace, "hello.txt"), "utf8"), "hi from bub\n");
  });
});
