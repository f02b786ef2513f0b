import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { discoverSkills } from "../../src/skills/discovery.ts";
import {
  filterAllowedSkills,
  renderSkillsPrompt,
  skillReferences,
  skillsPromptFor,
} from "../../src/skills/prompt.ts";
import { tempDir, writeSkill } from "./_helpers.ts";

function setup(t: { after: (fn: () => void) => void }) {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const root = join(tmp.path, ".agents", "skills");
  writeSkill(root, "alpha", "First skill", "Alpha body in $SKILL_DIR");
  writeSkill(root, "beta", "Second skill", "Beta body");
  writeSkill(root, "empty", "No body", "${config.missing}");
  return discoverSkills({ workspace: tmp.path, home: tmp.path, builtinDirs: [] });
}

describe("skills prompt block (§7.4)", () => {
  test("119: the skills block expands body and location only for skills referenced as $<name>", (t) => {
    const skills = setup(t);
    const alpha = skills.find((s) => s.name === "alpha")!;
    const block = skillsPromptFor(skills, "channel=$alpha|chat_id=1 please help, beta");
    assert.equal(
      block,
      [
        "<available_skills>",
        `- alpha: First skill\n  Location: ${alpha.location}\nAlpha body in ${
          join(alpha.location, "..")
        }`,
        "- beta: Second skill",
        "- empty: No body",
        "</available_skills>",
      ].join("\n"),
    );
  });

  test("an expanded skill whose rendered body is empty gets only its location line", (t) => {
    const skills = setup(t);
    const empty = skills.find((s) => s.name === "empty")!;
    assert.match(
      renderSkillsPrompt(skills, { expand: ["empty"] }),
      new RegExp(
        `- empty: No body\\n  Location: ${
          empty.location.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        }\\n</available_skills>$`,
      ),
    );
  });

  test("references are matched case-sensitively against the lowercase names", (t) => {
    const skills = setup(t);
    assert.doesNotMatch(skillsPromptFor(skills, "use $Alpha"), /Location/);
  });

  test("allowed skills limit the block (casefolded); no visible skills gives ''", (t) => {
    const skills = setup(t);
    const block = skillsPromptFor(skills, "$alpha $beta", { allowedSkills: ["BETA"] });
    assert.doesNotMatch(block, /alpha/);
    assert.match(block, /- beta: Second skill\n {2}Location: /);
    assert.equal(skillsPromptFor(skills, "x", { allowedSkills: [] }), "");
    assert.equal(filterAllowedSkills(skills, null).length, 3);
    assert.equal(renderSkillsPrompt([]), "");
  });

  test("skillReferences finds every $name with dots, dashes and underscores", () => {
    assert.deepEqual([...skillReferences("$a.b-c_d and $x, $ y $$z")], ["a.b-c_d", "x", "z"]);
  });
});
