/**
 * `bub acp` `session/delete`: advertised, it archives the session's tape under
 * `<BUB_HOME>/tapes`, removes it from `session/list` and from what `session/load` finds; an
 * unknown session is "not found", which the SDK's client takes as already deleted.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { type TempDirs, tempDirs } from "../../cli/_spawn.ts";
import { editorModel, initialize, newSession, say, startEditor } from "./_editor.ts";

describe("bub acp: session/delete", () => {
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

  test("delete archives the tape, the session leaves session/list and cannot be loaded; the other session stays", async () => {
    await using editor = startEditor(dirs, env);
    const { init, deleted, kept, listed, after, load, unknown } = await editor.run(async (ctx) => {
      const init = await initialize(ctx);
      const { sessionId: deleted } = await newSession(ctx, dirs.workspace);
      const { sessionId: kept } = await newSession(ctx, dirs.workspace);
      await say(ctx, deleted, "remember the word quince");
      await say(ctx, kept, "remember the word medlar");
      const list = async () =>
        (await ctx.request(acp.methods.agent.session.list, {})).sessions.map((s) => s.sessionId);
      const listed = await list();
      await ctx.request(acp.methods.agent.session.delete, { sessionId: deleted });
      const after = await list();
      const load = await ctx.request(acp.methods.agent.session.load, {
        sessionId: deleted,
        cwd: dirs.workspace,
        mcpServers: [],
      }).then(() => null, (error: acp.RequestError) => error);
      const unknown = await ctx.request(acp.methods.agent.session.delete, {
        sessionId: "acp:never-seen",
      }).then(() => null, (error: acp.RequestError) => error);
      return { init, deleted, kept, listed, after, load, unknown };
    });
    assert.deepEqual(init.agentCapabilities?.sessionCapabilities?.delete, {});
    assert.ok(listed.includes(deleted) && listed.includes(kept), listed.join());
    assert.ok(!after.includes(deleted), after.join());
    assert.ok(after.includes(kept), after.join());
    assert.equal(load?.code, -32002);
    // Bub answers -32002 (resource not found); the SDK's client makes that an idempotent success.
    assert.equal(unknown, null);
    const tapes = join(dirs.bubHome, "tapes");
    const archives = readdirSync(tapes).filter((name) => name.endsWith(".bak"));
    assert.equal(archives.length, 1, archives.join());
    assert.match(readFileSync(join(tapes, archives[0]!), "utf8"), /quince/);
  });
});
