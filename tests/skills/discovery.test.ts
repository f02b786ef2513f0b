import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinSkillsDir, discoverSkills, skillRoots } from "../../src/skills/discovery.ts";
import { parseFrontmatter } from "../../src/skills/frontmatter.ts";
import { tempDir, writeSkill, writeSkillFile } from "./_helpers.ts";

describe("SKILL.md validation (§7.1)", () => {
  test("116: invalid YAML, a name differing from the directory, an uppercase name, a description over 1024 chars, or non-string metadata values are skipped", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    const root = join(tmp.path, "ws", ".agents", "skills");
    writeSkill(root, "good", "A valid skill");
    writeSkillFile(root, "bad-yaml", "---\nname: bad-yaml\ndescription: [unclosed\n---\nx\n");
    writeSkillFile(root, "other-dir", "---\nname: other-name\ndescription: d\n---\nx\n");
    writeSkillFile(root, "Upper", "---\nname: Upper\ndescription: d\n---\nx\n");
    writeSkillFile(
      root,
      "long-desc",
      `---\nname: long-desc\ndescription: ${"x".repeat(1025)}\n---\nx\n`,
    );
    writeSkillFile(
      root,
      "bad-meta",
      "---\nname: bad-meta\ndescription: d\nmetadata:\n  n: 1\n---\nx\n",
    );
    writeSkillFile(root, "no-front", "name: no-front\ndescription: d\n");
    writeSkillFile(root, "list-front", "---\n- a\n- b\n---\nx\n");
    writeSkillFile(root, "empty-desc", "---\nname: empty-desc\ndescription: '  '\n---\nx\n");
    writeSkillFile(root, "double--hyphen", "---\nname: double--hyphen\ndescription: d\n---\nx\n");
    mkdirSync(join(root, "no-skill-file"));
    writeFileSync(join(root, "loose-file.md"), "not a directory");
    const skills = discoverSkills({
      workspace: join(tmp.path, "ws"),
      home: join(tmp.path, "home"),
      builtinDirs: [],
    });
    assert.deepEqual(skills.map((skill) => skill.name), ["good"]);
  });

  test("a description of exactly 1024 characters and string metadata are accepted; extra keys are kept", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    const root = join(tmp.path, ".agents", "skills");
    writeSkillFile(
      root,
      "edge",
      `---\nName: '  edge  '\ndescription: "  ${
        "d".repeat(1024)
      }  "\nlicense: MIT\nallowed-tools: bash\nmetadata: {channel: telegram}\n---\nx\n`,
    );
    const [skill] = discoverSkills({ workspace: tmp.path, home: tmp.path, builtinDirs: [] });
    assert.ok(skill);
    assert.equal(skill.name, "edge");
    assert.equal(skill.description.length, 1024);
    assert.equal(skill.source, "project");
    assert.equal(skill.location, realpathSync(join(root, "edge", "SKILL.md")));
    assert.deepEqual(skill.metadata.metadata, { channel: "telegram" });
    assert.equal(skill.metadata.license, "MIT");
    assert.equal(skill.metadata["allowed-tools"], "bash");
  });

  test("frontmatter must start at the first line and end at a line that trims to ---", () => {
    assert.deepEqual(parseFrontmatter("\n\n---\nname: a\n  ---  \nbody"), { name: "a" });
    assert.equal(parseFrontmatter("intro\n---\nname: a\n---\n"), null);
    assert.equal(parseFrontmatter("---\nname: a\n"), null);
    assert.equal(parseFrontmatter("---\njust text\n---\n"), null);
  });
});

describe("discovery roots and precedence (§7.2)", () => {
  test("117: a project skill overrides a global one, which overrides a builtin one with the same name", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    const workspace = join(tmp.path, "ws");
    const home = join(tmp.path, "home");
    const builtin = join(tmp.path, "builtin");
    writeSkill(join(workspace, ".agents", "skills"), "shared", "from project");
    writeSkill(join(home, ".agents", "skills"), "shared", "from global");
    writeSkill(join(home, ".agents", "skills"), "user-only", "from global");
    writeSkill(builtin, "shared", "from builtin");
    writeSkill(builtin, "user-only", "from builtin");
    writeSkill(builtin, "builtin-only", "from builtin");
    const skills = discoverSkills({ workspace, home, builtinDirs: [builtin] });
    assert.deepEqual(
      skills.map((skill) => [skill.name, skill.description, skill.source]),
      [
        ["builtin-only", "from builtin", "builtin"],
        ["shared", "from project", "project"],
        ["user-only", "from global", "global"],
      ],
    );
  });

  test("the legacy .agent/skills folder is scanned after .agents/skills, with a deprecation warning", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    writeSkill(join(tmp.path, ".agents", "skills"), "both", "new folder");
    writeSkill(join(tmp.path, ".agent", "skills"), "both", "legacy folder");
    writeSkill(join(tmp.path, ".agent", "skills"), "legacy-only", "legacy folder");
    const warnings: string[] = [];
    const skills = discoverSkills({
      workspace: tmp.path,
      home: join(tmp.path, "nohome"),
      builtinDirs: [],
      onWarning: (message) => warnings.push(message),
    });
    assert.deepEqual(skills.map((s) => [s.name, s.description, s.source]), [
      ["both", "new folder", "project"],
      ["legacy-only", "legacy folder", "project"],
    ]);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /legacy skills directory at '.*\.agent\/skills'\. Please move it to '\.agents\/skills'/,
    );
  });

  test("no legacy folder, no warning; roots are project, global, builtin in that order", () => {
    const warnings: string[] = [];
    const roots = skillRoots({
      workspace: "/nonexistent/ws",
      home: "/nonexistent/h",
      builtinDirs: ["/b1", "/b2"],
      onWarning: (m) => warnings.push(m),
    });
    assert.deepEqual(roots, [
      { path: "/nonexistent/ws/.agents/skills", source: "project" },
      { path: "/nonexistent/h/.agents/skills", source: "global" },
      { path: "/b1", source: "builtin" },
      { path: "/b2", source: "builtin" },
    ]);
    assert.deepEqual(warnings, []);
  });

  test("the result is sorted by casefolded name and rediscovered on every call", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    const root = join(tmp.path, ".agents", "skills");
    writeSkill(root, "zeta", "z");
    writeSkill(root, "alpha", "a");
    const options = { workspace: tmp.path, home: tmp.path, builtinDirs: [] };
    assert.deepEqual(discoverSkills(options).map((s) => s.name), ["alpha", "zeta"]);
    writeSkill(root, "mid", "m");
    assert.deepEqual(discoverSkills(options).map((s) => s.name), ["alpha", "mid", "zeta"]);
  });

  test("explicit roots replace the computed ones", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    writeSkill(join(tmp.path, "r1"), "one", "first");
    writeSkill(join(tmp.path, "r2"), "one", "second");
    const skills = discoverSkills({
      workspace: "/nonexistent",
      roots: [{ path: join(tmp.path, "r2"), source: "global" }, {
        path: join(tmp.path, "r1"),
        source: "project",
      }],
    });
    assert.deepEqual(skills.map((s) => [s.description, s.source]), [["second", "global"]]);
  });

  test("the builtin folder resolves next to the skills module and holds gh, skill-creator and telegram", () => {
    const dir = builtinSkillsDir();
    assert.match(dir, /src[\\/]skills[\\/]builtin[\\/]?$/);
    const skills = discoverSkills({ workspace: "/nonexistent", home: "/nonexistent" });
    assert.deepEqual(skills.map((s) => [s.name, s.source]), [
      ["gh", "builtin"],
      ["skill-creator", "builtin"],
      ["telegram", "builtin"],
    ]);
    const telegram = skills.find((s) => s.name === "telegram");
    assert.deepEqual(telegram?.metadata.metadata, { channel: "telegram" });
  });
});
