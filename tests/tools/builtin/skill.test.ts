import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { skillTool } from "../../../src/tools/builtin/skill.ts";
import { tempWorkspace, toolContext } from "./_helpers.ts";

async function writeSkill(root: string, name: string, body: string, description = "Demo skill") {
  const dir = join(root, ".agents", "skills", name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\n${body}`,
  );
  return join(await realpath(dir), "SKILL.md");
}

describe("skill tool", () => {
  test("lists skills, refuses disallowed names, reports unknown ones and loads a rendered body", async (t) => {
    const ws = await tempWorkspace(t);
    const home = await tempWorkspace(t, "bub-home-");
    const demo = await writeSkill(ws, "demo", "Token ${config.telegram.token} in $SKILL_DIR\n");
    await writeSkill(home, "global-one", "global body");
    await writeSkill(ws, "empty", "");
    const tool = skillTool({
      home,
      builtinSkillDirs: [],
      configLookup: (path) => (path === "telegram.token" ? "T0K" : undefined),
    });
    const ctx = toolContext({ _runtime_workspace: ws });
    assert.equal(await tool.run({}, ctx), "Available skills:\n- demo\n- empty\n- global-one");
    assert.equal(await tool.run({ name: "nope" }, ctx), "(no such skill)");
    assert.equal(
      await tool.run({ name: "DEMO" }, ctx),
      `Location: ${demo}\n---\nToken T0K in ${join(demo, "..")}`,
    );
    assert.match(
      String(await tool.run({ name: "empty" }, ctx)),
      /\n---\n---\nname: empty\ndescription: Demo skill\n---$/,
      "a file that is only frontmatter renders that frontmatter as its body",
    );
    const restricted = toolContext({ _runtime_workspace: ws, allowed_skills: ["global-one"] });
    assert.equal(
      await tool.run({ name: "demo" }, restricted),
      "(skill 'demo' is not allowed in this context)",
    );
    assert.equal(
      await tool.run({}, restricted),
      "Available skills:\n- demo\n- empty\n- global-one",
      "the listing is not filtered by the allowed list",
    );
    assert.equal(
      await tool.run({ name: "global-one" }, restricted),
      `Location: ${
        join(await realpath(home), ".agents/skills/global-one/SKILL.md")
      }\n---\nglobal body`,
    );
  });

  test("an invalid skill file is skipped", async (t) => {
    const ws = await tempWorkspace(t);
    const dir = join(ws, ".agents", "skills", "broken");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "SKILL.md"), "---\nname: [unclosed\n---\nbody");
    const tool = skillTool({ home: ws, builtinSkillDirs: [] });
    const ctx = toolContext({ _runtime_workspace: ws });
    assert.equal(await tool.run({}, ctx), "Available skills:\n");
    assert.equal(await tool.run({ name: "broken" }, ctx), "(no such skill)");
  });
});
