/**
 * The system prompt (builtin spec §9, §16 item 140): the builtin fragment with `AGENTS.md`,
 * plugin fragments, the tools and skills blocks, recorded on the tape once per turn and again only
 * on a step whose system prompt changed.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinSystemPrompt, DEFAULT_SYSTEM_PROMPT } from "../../src/builtin/system_prompt.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";
import { tempDir } from "../_helpers/kernel.ts";

function systemOf(body: Record<string, unknown>): string {
  const first = (body.messages as Array<{ role: string; content: string }>)[0]!;
  assert.equal(first.role, "system");
  return first.content;
}

describe("the builtin fragment", () => {
  test("appends the trimmed AGENTS.md content after a blank line", () => {
    using tmp = tempDir();
    writeFileSync(join(tmp.path, "AGENTS.md"), "\n\n  Always answer in French.  \n\n");
    assert.equal(
      builtinSystemPrompt({ _runtime_workspace: tmp.path }),
      `${DEFAULT_SYSTEM_PROMPT}\n\nAlways answer in French.`,
    );
  });

  test("a missing AGENTS.md adds nothing after the separator", () => {
    using tmp = tempDir();
    assert.equal(
      builtinSystemPrompt({ _runtime_workspace: tmp.path }),
      `${DEFAULT_SYSTEM_PROMPT}\n\n`,
    );
  });

  test("the default prompt has the general, response and context sections in order and ends with a newline", () => {
    const a = DEFAULT_SYSTEM_PROMPT.indexOf("<general_instruct>");
    const b = DEFAULT_SYSTEM_PROMPT.indexOf("<response_instruct>");
    const c = DEFAULT_SYSTEM_PROMPT.indexOf("<context_contract>");
    assert.ok(a === 0 && a < b && b < c);
    assert.ok(DEFAULT_SYSTEM_PROMPT.endsWith("</context_contract>\n"));
    assert.match(DEFAULT_SYSTEM_PROMPT, /tape\.handoff/);
  });
});

describe("assembly", () => {
  test("the request's system message is builtin fragment + AGENTS.md, plugin fragments, the tools block and the skills block, joined by blank lines", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("ok")],
      tools: [defineTool({ name: "tests.one", description: "First tool", handler: () => 1 })],
      plugins: [{ name: "rules", systemPrompt: () => "PLUGIN RULES" }],
    });
    writeFileSync(join(fx.home, "AGENTS.md"), "Project notes.\n");
    await fx.turn("hi");
    const system = systemOf(fx.bodies()[0]!);
    const expectedHead =
      `${DEFAULT_SYSTEM_PROMPT}\n\nProject notes.\n\nPLUGIN RULES\n\n<available_tools>\n`;
    assert.equal(system.slice(0, expectedHead.length), expectedHead);
    const tools = system.slice(expectedHead.length, system.indexOf("</available_tools>"));
    assert.ok(tools.split("\n").includes("- tests_one(): First tool"), tools);
    assert.ok(system.includes("</available_tools>\n\n<available_skills>\n"));
    assert.ok(system.endsWith("</available_skills>"));
  });

  test("the full system prompt is recorded once per turn when every step sends the same one", async () => {
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_one", {}), mockReply.text("ok"), mockReply.text("ok")],
      tools: [defineTool({ name: "tests.one", handler: () => 1 })],
    });
    await fx.turn("hi");
    const systems = (await fx.entries()).filter((e) => e.kind === "system").map((e) =>
      (e.payload as { content: string }).content
    );
    assert.equal(systemOf(fx.bodies()[1]!), systemOf(fx.bodies()[0]!));
    assert.deepEqual(systems, [systemOf(fx.bodies()[0]!)]);
    await fx.turn("again");
    const next = (await fx.entries()).filter((e) => e.kind === "system");
    assert.equal(next.length, 2, "the next turn records it again");
  });

  test("a step whose system prompt changed records the new one", async () => {
    let step = 0;
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_one", {}), mockReply.text("ok")],
      tools: [defineTool({ name: "tests.one", handler: () => 1 })],
      plugins: [{ name: "counter", systemPrompt: () => `STEP ${++step}` }],
    });
    await fx.turn("hi");
    const systems = (await fx.entries()).filter((e) => e.kind === "system").map((e) =>
      (e.payload as { content: string }).content
    );
    assert.equal(systems.length, 2);
    assert.equal(systems[0], systemOf(fx.bodies()[0]!));
    assert.equal(systems[1], systemOf(fx.bodies()[1]!));
    assert.notEqual(systems[0], systems[1]);
  });
});
