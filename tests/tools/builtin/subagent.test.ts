import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Prompt, TurnState } from "../../../src/kernel/turn.ts";
import { type SubagentRunner, subagentTool } from "../../../src/tools/builtin/subagent.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { toolContext } from "./_helpers.ts";

interface Call {
  sessionId: string;
  prompt: Prompt;
  state: TurnState;
  model?: string | null;
  allowedTools: string[] | null;
  allowedSkills: string[] | null;
}

/** A fake runtime agent recording its runs and replaying scripted events. */
function fakeAgent(
  events: { kind: string; data: Record<string, unknown> }[] = [{
    kind: "text",
    data: { delta: "ok" },
  }],
): SubagentRunner & { calls: Call[] } {
  const registry = new ToolRegistry(
    ["fs.read", "bash", "subagent"].map((name) => defineTool({ name, handler: () => name })),
  );
  const calls: Call[] = [];
  return {
    registry,
    calls,
    runStream(options) {
      calls.push({
        ...options,
        allowedTools: options.allowedTools ? [...options.allowedTools] : null,
        allowedSkills: options.allowedSkills ? [...options.allowedSkills] : null,
      });
      return Promise.resolve((async function* () {
        yield* events;
      })());
    },
  };
}

describe("subagent tool", () => {
  test("inherit reuses the session id, temp uses temp/<8 hex>, other values are used verbatim", async () => {
    const agent = fakeAgent();
    const state = { session_id: "cli:main", _runtime_agent: agent, other: 1 };
    const tool = subagentTool();
    for (const session of ["inherit", "temp", "review/1"]) {
      assert.equal(await tool.run({ prompt: "go", session }, toolContext(state)), "ok");
    }
    const [inherit, temp, named] = agent.calls;
    assert.equal(inherit!.sessionId, "cli:main");
    assert.match(temp!.sessionId, /^temp\/[0-9a-f]{8}$/);
    assert.equal(named!.sessionId, "review/1");
    assert.deepEqual(named!.state, { ...state, session_id: "review/1" });
    assert.equal(state.session_id, "cli:main", "the parent state is not modified");
  });

  test("the default session is temp; a missing parent session is temp/unknown", async () => {
    const agent = fakeAgent();
    await subagentTool().run({ prompt: "go" }, toolContext({ _runtime_agent: agent }));
    await subagentTool().run(
      { prompt: "go", session: "inherit" },
      toolContext({ _runtime_agent: agent }),
    );
    assert.match(agent.calls[0]!.sessionId, /^temp\/[0-9a-f]{8}$/);
    assert.equal(agent.calls[1]!.sessionId, "temp/unknown");
  });

  test("an empty allowed_tools list gives every tool except subagent; names resolve by alias", async () => {
    const agent = fakeAgent();
    const tool = subagentTool();
    const ctx = toolContext({ session_id: "s", _runtime_agent: agent });
    await tool.run({ prompt: "go", allowed_tools: [] }, ctx);
    await tool.run({
      prompt: "go",
      allowed_tools: [" FS_READ ", "subagent"],
      allowed_skills: ["gh"],
    }, ctx);
    assert.deepEqual(agent.calls[0]!.allowedTools, ["fs.read", "bash"]);
    assert.deepEqual(agent.calls[1]!.allowedTools, ["fs.read"]);
    assert.deepEqual(agent.calls[1]!.allowedSkills, ["gh"]);
  });

  test("an unknown allowed tool fails before the child runs", async () => {
    const agent = fakeAgent();
    await assert.rejects(
      subagentTool().run(
        { prompt: "go", allowed_tools: ["nope", "bash"] },
        toolContext({ _runtime_agent: agent }),
      ),
      { message: "unknown tool name(s): 'nope'" },
    );
    assert.equal(agent.calls.length, 0);
  });

  test("text deltas are concatenated and errors appended as [Error: ...]", async () => {
    const agent = fakeAgent([
      { kind: "text", data: { delta: "part 1, " } },
      { kind: "error", data: { message: "tool broke" } },
      { kind: "text", data: { delta: "part 2" } },
      { kind: "error", data: {} },
      { kind: "final", data: { text: "ignored" } },
    ]);
    const out = await subagentTool().run(
      { prompt: [{ type: "text", text: "go" }], model: "openai:gpt-4o" },
      toolContext({ _runtime_agent: agent }),
    );
    assert.equal(out, "part 1, part 2[Error: tool broke][Error: unknown error]");
    assert.equal(agent.calls[0]!.model, "openai:gpt-4o");
    assert.deepEqual(agent.calls[0]!.prompt, [{ type: "text", text: "go" }]);
  });

  test("without a runtime agent it fails", async () => {
    await assert.rejects(subagentTool().run({ prompt: "go" }, toolContext({})), {
      message: "no runtime agent found in tool context",
    });
  });
});
