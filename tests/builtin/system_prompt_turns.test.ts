/**
 * The system prompt across turns (issue 13 item 2): skills, `AGENTS.md` and the tool list are
 * reused while unchanged, and every change on disk or in the registry reaches the next turn's
 * request. Real files, a real mock model server.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";
import { writeSkill } from "../skills/_helpers.ts";

function systemOf(body: Record<string, unknown>): string {
  const first = (body.messages as Array<{ role: string; content: string }>)[0]!;
  assert.equal(first.role, "system");
  return first.content;
}

function lastSystem(bodies: Record<string, unknown>[]): string {
  return systemOf(bodies.at(-1)!);
}

describe("the system prompt across turns", () => {
  test("a skill created, edited and deleted between turns shows in the next turn's request", async () => {
    await using fx = await turnFixture({ script: Array(5).fill(mockReply.text("ok")) });
    const root = join(fx.home, ".agents", "skills");
    await fx.turn("one");
    const plain = lastSystem(fx.bodies());
    assert.ok(!plain.includes("- my-skill:"));
    writeSkill(root, "my-skill", "Does a thing");
    await fx.turn("two");
    assert.ok(lastSystem(fx.bodies()).includes("\n- my-skill: Does a thing\n"));
    writeFileSync(
      join(root, "my-skill", "SKILL.md"),
      "---\nname: my-skill\ndescription: Does another thing\n---\nBody.\n",
    );
    await fx.turn("three");
    const edited = lastSystem(fx.bodies());
    assert.ok(edited.includes("\n- my-skill: Does another thing\n"), edited);
    assert.ok(!edited.includes("Does a thing"));
    rmSync(join(root, "my-skill"), { recursive: true });
    await fx.turn("four");
    assert.equal(lastSystem(fx.bodies()), plain);
    await fx.turn("five");
    assert.equal(lastSystem(fx.bodies()), plain);
  });

  test("an AGENTS.md edit reaches the next turn; within a turn the steps keep the first prompt", async () => {
    let agentsPath = "";
    await using fx = await turnFixture({
      script: [
        mockReply.text("ok"),
        mockReply.toolCall("tests_edit", {}),
        mockReply.text("ok"),
        mockReply.text("ok"),
      ],
      tools: [defineTool({
        name: "tests.edit",
        description: "Edits AGENTS.md",
        handler: () => {
          writeFileSync(agentsPath, "Rules, edited during the turn.\n");
          return "edited";
        },
      })],
    });
    agentsPath = join(fx.home, "AGENTS.md");
    writeFileSync(agentsPath, "Rules, first.\n");
    await fx.turn("one");
    assert.ok(lastSystem(fx.bodies()).includes("\n\nRules, first.\n\n"));
    writeFileSync(agentsPath, "Rules, second version.\n");
    await fx.turn("two");
    const bodies = fx.bodies();
    assert.equal(bodies.length, 3);
    assert.ok(systemOf(bodies[1]!).includes("\n\nRules, second version.\n\n"));
    assert.equal(systemOf(bodies[2]!), systemOf(bodies[1]!), "same prompt on the turn's 2nd step");
    await fx.turn("three");
    assert.ok(lastSystem(fx.bodies()).includes("\n\nRules, edited during the turn.\n\n"));
    const systems = (await fx.entries()).filter((e) => e.kind === "system");
    assert.equal(systems.length, 3, "one system entry per turn");
  });

  test("an AGENTS.md created after turns without one, then removed, is seen by the next turn", async () => {
    await using fx = await turnFixture({ script: Array(4).fill(mockReply.text("ok")) });
    await fx.turn("one");
    await fx.turn("two");
    const plain = lastSystem(fx.bodies());
    writeFileSync(join(fx.home, "AGENTS.md"), "Created later.\n");
    await fx.turn("three");
    assert.ok(lastSystem(fx.bodies()).includes("\n\nCreated later.\n\n"));
    rmSync(join(fx.home, "AGENTS.md"));
    await fx.turn("four");
    assert.equal(lastSystem(fx.bodies()), plain);
  });

  test("a tool registered or removed between turns changes the tools block and the request's tools", async () => {
    await using fx = await turnFixture({ script: Array(3).fill(mockReply.text("ok")) });
    await fx.turn("one");
    const toolNames = () =>
      ((fx.bodies().at(-1)!.tools ?? []) as Array<{ function: { name: string } }>).map((t) =>
        t.function.name
      );
    assert.ok(!toolNames().includes("tests_late"));
    fx.builtin.runtime.registry.register(
      defineTool({ name: "tests.late", description: "Registered later", handler: () => 1 }),
    );
    await fx.turn("two");
    assert.ok(lastSystem(fx.bodies()).includes("\n- tests_late(): Registered later\n"));
    assert.ok(toolNames().includes("tests_late"));
    fx.builtin.runtime.registry.delete("tests.late");
    await fx.turn("three");
    assert.ok(!lastSystem(fx.bodies()).includes("tests_late"));
    assert.ok(!toolNames().includes("tests_late"));
  });
});
