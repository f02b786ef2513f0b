/** Issue 6: a `subagent` round trip through the builtin agent against the mock model. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mockReply, type MockRequest } from "../../../src/testing/mock_llm_server.ts";
import { sessionTapeName } from "../../../src/tape/naming.ts";
import { TapeQuery } from "../../../src/tape/query.ts";
import type { TapeStore } from "../../../src/tape/store.ts";
import { defineTool } from "../../../src/tools/tool.ts";
import { turnFixture } from "../../agent/_turn_fixture.ts";

const CHILD_PROMPT = "Count the moons of Mars and answer with the number only.";
const CHILD_ANSWER = "Mars has 2 moons (Phobos, Deimos).";

function toolNames(request: MockRequest): string[] {
  const tools =
    (request.body as { tools?: { name?: string; function?: { name?: string } }[] }).tools ?? [];
  return tools.map((tool) => tool.function?.name ?? tool.name ?? "");
}

describe("subagent end to end (issue 6)", () => {
  test("the parent's subagent call runs a child turn on the same model, gets its output as the tool result, and the temp session leaves no tape entries", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("subagent", { prompt: CHILD_PROMPT, session: "temp" }),
        mockReply.text(CHILD_ANSWER, { chunks: 3 }),
        mockReply.text("The sub-agent says Mars has 2 moons."),
      ],
    });
    const result = await fx.turn("How many moons does Mars have? Ask a sub-agent.");
    assert.equal(result.modelOutput, "The sub-agent says Mars has 2 moons.");
    assert.equal(fx.server.requests.length, 3);
    const [parentFirst, child, parentSecond] = fx.server.requests as [
      MockRequest,
      MockRequest,
      MockRequest,
    ];

    // The child's call: its own prompt, without the parent's conversation and without `subagent`.
    const childBody = JSON.stringify(child.body);
    assert.ok(childBody.includes(CHILD_PROMPT));
    assert.ok(
      !childBody.includes("Ask a sub-agent"),
      "the temp child does not see the parent's tape",
    );
    assert.ok(toolNames(parentFirst).includes("subagent"));
    assert.ok(toolNames(child).length > 0);
    assert.ok(!toolNames(child).includes("subagent"), "a sub-agent cannot start another");

    // The parent's next call carries the child's output as the tool result.
    assert.ok(JSON.stringify(parentSecond.body).includes(CHILD_ANSWER));

    // Only the parent's session tape has entries; the temp/... child tape was never merged.
    const store = fx.bub.getTapeStore<TapeStore>()!;
    const parentTape = sessionTapeName("cli:local", fx.home);
    const parentEntries = await fx.entries("cli:local");
    assert.ok(
      JSON.stringify(parentEntries).includes(CHILD_ANSWER),
      "the tool result is on the parent tape",
    );
    const tapes = await store.listTapes();
    assert.ok(
      tapes.includes(parentTape),
      `the parent tape ${parentTape} is stored: ${tapes.join(", ")}`,
    );
    for (const tape of tapes) {
      if (tape === parentTape) continue;
      const entries = await new TapeQuery(tape, store).all();
      assert.deepEqual(entries, [], `tape ${tape} should be empty`);
    }
  });

  test("a tool the sub-agent calls shows in the parent's stream as tool_start/tool_end inside the subagent call", async () => {
    const echo = defineTool({
      name: "tests.echo",
      parameters: { type: "object", properties: { text: { type: "string" } } },
      handler: (args: Record<string, unknown>) => `echo:${String(args.text)}`,
    });
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("subagent", { prompt: CHILD_PROMPT, session: "temp" }, { id: "p1" }),
        mockReply.toolCall("tests_echo", { text: "moons" }, { id: "c1" }),
        mockReply.text(CHILD_ANSWER),
        mockReply.text("done"),
      ],
      tools: [echo],
    });
    const result = await fx.turn("Ask a sub-agent.");
    assert.equal(result.modelOutput, "done");
    const tools = fx.turns[0]!.allEvents.flatMap((event) =>
      event.kind === "tool_start"
        ? [`start ${event.data.name} ${event.data.call_id}`]
        : event.kind === "tool_end"
        ? [`end ${event.data.name} ${event.data.ok}`]
        : []
    );
    assert.deepEqual(tools, [
      "start subagent p1",
      "start tests.echo c1",
      "end tests.echo true",
      "end subagent true",
    ]);
  });
});
