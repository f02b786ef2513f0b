import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  HELP_TEXT,
  helpTool,
  modelTool,
  quitTool,
  reasoningEffortTool,
} from "../../../src/tools/builtin/session.ts";
import { bashTool } from "../../../src/tools/builtin/bash.ts";
import { memoryTape, scopedShells, shellIdOf, toolContext } from "./_helpers.ts";

async function events(tape: ReturnType<typeof memoryTape>) {
  return (await tape.query().kinds("event").all()).map((entry) => entry.payload);
}

describe("session tools", () => {
  test("the session tools are operator-only", () => {
    for (const tool of [helpTool(), modelTool(), reasoningEffortTool()]) {
      assert.equal(tool.agentUse, false, tool.name);
    }
  });

  test("help lists the example commands with real shell ids and the command= parameter", async () => {
    const text = String(await helpTool().run({}));
    assert.equal(text, HELP_TEXT);
    assert.match(text, /^Commands start with ','/);
    for (
      const example of [
        ",help",
        ",skill name=foo",
        ",tape.info",
        ",tape.search query=error",
        ",tape.handoff name=phase-1 summary='done'",
        ",tape.anchors",
        ",fs.read path=README.md",
        ",fs.write path=tmp.txt content='hello'",
        ",fs.edit path=tmp.txt old=hello new=world",
        ",bash command='sleep 5' background=true",
        ",bash.output shell_id=bash-1a2b3c4d",
        ",bash.kill shell_id=bash-1a2b3c4d",
        ",quit",
      ]
    ) {
      assert.ok(text.includes(`  ${example}\n`), example);
    }
    assert.match(text, /shell command through bash/);
  });

  test("model sets state.model, records model_switch and says when it applies", async () => {
    const tape = memoryTape();
    const state: Record<string, unknown> = {};
    assert.equal(
      await modelTool().run({ model_id: " openai:gpt-4o " }, toolContext(state, tape)),
      "Session model set to openai:gpt-4o (applies from the next turn).",
    );
    assert.equal(state.model, "openai:gpt-4o");
    assert.deepEqual(await events(tape), [{
      name: "model_switch",
      data: { model: "openai:gpt-4o" },
    }]);
  });

  test("reasoning_effort rejects blanks without changes; high sets state and records the switch", async () => {
    const tape = memoryTape();
    const state: Record<string, unknown> = {};
    const tool = reasoningEffortTool();
    await assert.rejects(tool.run({ reasoning_effort: "  " }, toolContext(state, tape)), {
      message: "reasoning_effort must not be empty",
    });
    assert.deepEqual(state, {});
    assert.deepEqual(await events(tape), []);
    assert.equal(
      await tool.run({ reasoning_effort: "high" }, toolContext(state, tape)),
      "Session reasoning effort set to high (applies from the next turn).",
    );
    assert.equal(state.reasoning_effort, "high");
    assert.deepEqual(await events(tape), [
      { name: "reasoning_effort_switch", data: { reasoning_effort: "high" } },
    ]);
  });

  test("quit terminates only the current session's shells and asks the router to quit it", async (t) => {
    const shells = scopedShells(t);
    const bash = bashTool(shells);
    const mine = shellIdOf(String(
      await bash.run(
        { command: "sleep 30", background: true },
        toolContext({ session_id: "cli:me" }),
      ),
    ));
    const other = shellIdOf(String(
      await bash.run(
        { command: "sleep 30", background: true },
        toolContext({ session_id: "cli:other" }),
      ),
    ));
    const quitted: string[] = [];
    const quit = quitTool(shells, (id) => {
      quitted.push(id);
    });
    const state = { session_id: "cli:me", _runtime_agent: {} };
    assert.equal(await quit.run({}, toolContext(state)), "Session tasks stopped.");
    assert.deepEqual(quitted, ["cli:me"]);
    assert.equal(shells.has(mine), false);
    assert.equal(shells.has(other), true);
    assert.equal(quit.agentUse, false);
  });

  test("quit without a runtime agent fails and stops nothing", async (t) => {
    const shells = scopedShells(t);
    const id = shellIdOf(String(
      await bashTool(shells).run(
        { command: "sleep 30", background: true },
        toolContext({ session_id: "s" }),
      ),
    ));
    await assert.rejects(quitTool(shells).run({}, toolContext({ session_id: "s" })), {
      message: "no runtime agent found in tool context",
    });
    assert.equal(shells.has(id), true);
  });

  test("quit defaults the session to temp/unknown", async (t) => {
    const quitted: string[] = [];
    const quit = quitTool(scopedShells(t), (id) => {
      quitted.push(id);
    });
    await quit.run({}, toolContext({ _runtime_agent: {} }));
    assert.deepEqual(quitted, ["temp/unknown"]);
  });
});
