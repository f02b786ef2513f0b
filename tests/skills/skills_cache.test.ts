/**
 * Skill discovery reused across turns (issue 13 item 2): the same frozen list while no skills
 * root listing and no `SKILL.md` changed; every creation, edit, removal and late `SKILL.md` is
 * seen by the next call. Real files in a temp directory.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverSkills } from "../../src/skills/discovery.ts";
import { SkillsCache } from "../../src/skills/skills_cache.ts";
import { tempDir, writeSkill } from "./_helpers.ts";

function setup(t: { after(fn: () => void): void }) {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const options = {
    workspace: join(tmp.path, "ws"),
    home: join(tmp.path, "home"),
    builtinDirs: [join(tmp.path, "builtin")],
  };
  const cache = new SkillsCache();
  const names = () => cache.discover(options).map((s) => `${s.name}:${s.description}`);
  return {
    tmp,
    options,
    cache,
    names,
    project: join(options.workspace, ".agents", "skills"),
    user: join(options.home, ".agents", "skills"),
  };
}

describe("SkillsCache", () => {
  test("returns the same frozen list while nothing changed, equal to discoverSkills", (t) => {
    const { options, cache, project } = setup(t);
    writeSkill(project, "alpha", "First");
    writeSkill(options.builtinDirs[0]!, "packaged", "Packaged");
    const first = cache.discover(options);
    assert.ok(Object.isFrozen(first));
    assert.equal(cache.discover(options), first);
    assert.deepEqual([...first], discoverSkills(options));
    assert.deepEqual(first.map((s) => s.name), ["alpha", "packaged"]);
  });

  test("sees a skill created, edited in place, renamed over and deleted between calls", (t) => {
    const { cache, options, names, project, user } = setup(t);
    assert.deepEqual(names(), []);
    writeSkill(project, "alpha", "First");
    assert.deepEqual(names(), ["alpha:First"]);
    const before = cache.discover(options);
    // In place: the skill's folder and the root keep their mtime, only SKILL.md changes.
    writeFileSync(
      join(project, "alpha", "SKILL.md"),
      "---\nname: alpha\ndescription: First, edited\n---\nBody.\n",
    );
    assert.deepEqual(names(), ["alpha:First, edited"]);
    assert.notEqual(cache.discover(options), before);
    // Replaced by rename (how editors save).
    writeFileSync(
      join(project, "alpha", "next.tmp"),
      "---\nname: alpha\ndescription: Renamed\n---\n",
    );
    renameSync(join(project, "alpha", "next.tmp"), join(project, "alpha", "SKILL.md"));
    assert.deepEqual(names(), ["alpha:Renamed"]);
    writeSkill(user, "beta", "Global");
    assert.deepEqual(names(), ["alpha:Renamed", "beta:Global"]);
    rmSync(join(project, "alpha"), { recursive: true });
    assert.deepEqual(names(), ["beta:Global"]);
    rmSync(join(project, ".."), { recursive: true });
    assert.deepEqual(names(), ["beta:Global"]);
  });

  test("a folder that gets its SKILL.md later, or loses it, is seen", (t) => {
    const { names, project } = setup(t);
    mkdirSync(join(project, "gamma"), { recursive: true });
    assert.deepEqual(names(), []);
    writeFileSync(join(project, "gamma", "SKILL.md"), "---\nname: gamma\ndescription: Late\n---\n");
    assert.deepEqual(names(), ["gamma:Late"]);
    rmSync(join(project, "gamma", "SKILL.md"));
    assert.deepEqual(names(), []);
  });

  test("an invalid edit drops the skill and a fix brings it back", (t) => {
    const { names, project } = setup(t);
    writeSkill(project, "delta", "Valid");
    assert.deepEqual(names(), ["delta:Valid"]);
    writeFileSync(join(project, "delta", "SKILL.md"), "---\nname: Delta\ndescription: bad\n---\n");
    assert.deepEqual(names(), []);
    writeSkill(project, "delta", "Fixed again");
    assert.deepEqual(names(), ["delta:Fixed again"]);
  });

  test("the legacy .agent/skills root appearing later is scanned after .agents/skills", (t) => {
    const { options, names, project } = setup(t);
    writeSkill(project, "alpha", "New place");
    assert.deepEqual(names(), ["alpha:New place"]);
    const legacy = join(options.workspace, ".agent", "skills");
    writeSkill(legacy, "alpha", "Old place");
    writeSkill(legacy, "omega", "Only old");
    const warnings: string[] = [];
    const skills = new SkillsCache().discover({ ...options, onWarning: (m) => warnings.push(m) });
    assert.deepEqual(skills.map((s) => s.description), ["New place", "Only old"]);
    assert.equal(warnings.length, 1);
    assert.deepEqual(names(), ["alpha:New place", "omega:Only old"]);
  });

  test("workspaces are cached side by side", (t) => {
    const { tmp, options, cache, project } = setup(t);
    writeSkill(project, "alpha", "First");
    const other = { ...options, workspace: join(tmp.path, "other") };
    writeSkill(join(other.workspace, ".agents", "skills"), "zeta", "Other");
    const a = cache.discover(options);
    const b = cache.discover(other);
    assert.deepEqual(b.map((s) => s.name), ["zeta"]);
    assert.equal(cache.discover(options), a);
    assert.equal(cache.discover(other), b);
  });

  test("the package's own skills folder is not re-checked per call; its edits show with the next change of a user root", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    const packaged = join(tmp.path, "package-skills");
    const workspace = join(tmp.path, "ws");
    const options = { workspace, home: join(tmp.path, "home") };
    writeSkill(packaged, "packaged", "Shipped");
    const cache = new SkillsCache(16, [packaged]);
    const names = () => cache.discover(options).map((s) => `${s.name}:${s.description}`);
    assert.deepEqual(names(), ["packaged:Shipped"]);
    const first = cache.discover(options);
    // Edited in place (only a developer's checkout does this): not looked at on each call.
    writeSkill(packaged, "packaged", "Edited");
    assert.equal(cache.discover(options), first);
    // A user root changes: everything is read again, the package's folder included.
    writeSkill(join(workspace, ".agents", "skills"), "alpha", "Mine");
    assert.deepEqual(names(), ["alpha:Mine", "packaged:Edited"]);
    // A call naming builtin folders explicitly checks them on every call, as any other root.
    const explicit = { ...options, builtinDirs: [packaged] };
    assert.deepEqual(cache.discover(explicit).map((s) => s.description), ["Mine", "Edited"]);
    writeSkill(packaged, "packaged", "Again");
    assert.deepEqual(cache.discover(explicit).map((s) => s.description), ["Mine", "Again"]);
  });
});
