/**
 * `bub acp` with what an editor brings: its file system, config options, slash commands, images
 * in prompts and the model's plan.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { type TempDirs, tempDirs } from "../../cli/_spawn.ts";
import {
  editorModel,
  initialize,
  newSession,
  say,
  startEditor,
  turn,
  type WireMessage,
} from "./_editor.ts";

describe("bub acp: the editor's files, options, commands and plans", () => {
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

  test("an editor offering its file system: fs tools read its unsaved buffer and write into it, not to disk", async () => {
    const files = new Map([[join(dirs.workspace, "buffer.txt"), "unsaved editor text"]]);
    await using editor = startEditor(dirs, env, { files });
    const before = model.requests.length;
    await editor.run(async (ctx) => {
      await initialize(ctx, true);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      for (const text of ["read the buffer", "write into the editor"]) {
        const response = await say(ctx, sessionId, text);
        assert.equal(response.stopReason, "end_turn");
      }
    });
    const toolResults = model.requests.slice(before).flatMap((request) =>
      (request.body as { messages: WireMessage[] }).messages.filter((m) => m.role === "tool")
    );
    assert.ok(
      toolResults.some((message) => String(message.content).includes("unsaved editor text")),
      JSON.stringify(toolResults),
    );
    const written = join(dirs.workspace, "editor.txt");
    assert.equal(files.get(written), "from bub to the editor\n");
    assert.equal(existsSync(written), false, "the write went to disk, not to the editor");
  });

  test("config options: model and reasoning effort offered, switched through ,model (on the tape), used by the next prompt", async () => {
    const fallbackEnv = { ...env, BUB_FALLBACK_MODELS: '["custom:y"]' };
    await using editor = startEditor(dirs, fallbackEnv);
    const before = model.requests.length;
    const { created, switched, refused } = await editor.run(async (ctx) => {
      await initialize(ctx);
      const created = await newSession(ctx, dirs.workspace);
      const switched = await ctx.request(acp.methods.agent.session.setConfigOption, {
        sessionId: created.sessionId,
        configId: "model",
        value: "custom:y",
      });
      const refused = await ctx.request(acp.methods.agent.session.setConfigOption, {
        sessionId: created.sessionId,
        configId: "model",
        value: "custom:not-offered",
      }).then(() => null, (error: acp.RequestError) => error);
      await say(ctx, created.sessionId, "hello");
      return { created, switched, refused };
    });
    const modelOption = (options: unknown) =>
      (options as { id: string; currentValue: string; options: { value: string }[] }[])
        .find((option) => option.id === "model")!;
    assert.equal(modelOption(created.configOptions).currentValue, "custom:x");
    assert.deepEqual(modelOption(created.configOptions).options.map((o) => o.value), [
      "custom:x",
      "custom:y",
    ]);
    assert.equal(modelOption(switched.configOptions).currentValue, "custom:y");
    assert.equal(refused?.code, -32602);
    assert.match(String(refused?.message), /custom:x, custom:y/);
    const sent = model.requests.slice(before).map((r) => (r.body as { model: string }).model);
    assert.deepEqual(sent, ["y"]);
  });

  test("slash commands: announced after session/new, /tape.info runs ,tape.info without a model call", async () => {
    await using editor = startEditor(dirs, env);
    const before = model.requests.length;
    const response = await editor.run(async (ctx) => {
      await initialize(ctx);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      return await say(ctx, sessionId, "/tape.info");
    });
    assert.equal(response.stopReason, "end_turn");
    assert.equal(model.requests.length, before);
    const commands = editor.updates.find((n) =>
      n.update.sessionUpdate === "available_commands_update"
    )
      ?.update as { availableCommands: { name: string }[] } | undefined;
    assert.ok(commands?.availableCommands.some((command) => command.name === "tape.info"));
    const text = editor.updates
      .filter((n) => n.update.sessionUpdate === "agent_message_chunk")
      .map((n) => (n.update as { content: { text: string } }).content.text)
      .join("");
    assert.match(text, /entries/);
  });

  test("an image in the prompt reaches the model as an image part beside the text", async () => {
    await using editor = startEditor(dirs, env);
    const before = model.requests.length;
    const png =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    await editor.run(async (ctx) => {
      const init = await initialize(ctx);
      assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
      const { sessionId } = await newSession(ctx, dirs.workspace);
      await ctx.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: "text", text: "what is in this picture" },
          { type: "image", mimeType: "image/png", data: png },
        ],
      });
    });
    const [request] = model.requests.slice(before);
    const user = (request!.body as { messages: WireMessage[] }).messages.at(-1)!;
    assert.ok(Array.isArray(user.content), JSON.stringify(user.content));
    const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
    assert.match(String(parts[0]?.text), /what is in this picture/);
    assert.equal(parts[1]?.image_url?.url, `data:image/png;base64,${png}`);
  });

  test("the model's plan.update call shows as a plan, live and when the session is loaded again", async () => {
    const expected = [
      { content: "read the code", status: "completed", priority: "high" },
      { content: "write the fix", status: "in_progress", priority: "medium" },
    ];
    let sessionId = "";
    {
      await using editor = startEditor(dirs, env);
      await editor.run(async (ctx) => {
        await initialize(ctx);
        ({ sessionId } = await newSession(ctx, dirs.workspace));
        await say(ctx, sessionId, "make a plan");
      });
      const plan = turn(editor.updates)[0]?.update as { sessionUpdate: string; entries: unknown };
      assert.equal(plan.sessionUpdate, "plan");
      assert.deepEqual(plan.entries, expected);
      assert.equal((turn(editor.updates)[1]?.update as { kind?: string }).kind, "think");
    }
    await using again = startEditor(dirs, env);
    await again.run(async (ctx) => {
      await initialize(ctx);
      await ctx.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: dirs.workspace,
        mcpServers: [],
      });
    });
    const replayed = turn(again.updates).find((n) => n.update.sessionUpdate === "plan");
    assert.deepEqual((replayed?.update as { entries: unknown }).entries, expected);
  });
});
