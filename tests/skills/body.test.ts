import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { getConfigValue } from "../../src/builtin/settings.ts";
import { renderSkillBody, renderSkillText } from "../../src/skills/body.ts";
import { discoverSkills } from "../../src/skills/discovery.ts";
import type { Skill } from "../../src/skills/skill.ts";
import { tempDir, writeSkillFile } from "./_helpers.ts";

function onlySkill(workspace: string): Skill {
  const [skill] = discoverSkills({ workspace, home: workspace, builtinDirs: [] });
  assert.ok(skill, "expected one skill");
  return skill;
}

describe("skill body rendering (§7.3)", () => {
  test("118: body() strips frontmatter, renders ${config.telegram.token} (env overrides YAML), and replaces $SKILL_DIR", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    writeSkillFile(
      join(tmp.path, ".agents", "skills"),
      "send",
      "---\nname: send\ndescription: Send things\n---\n\nToken: ${config.telegram.token}\nSpaced: ${ config.telegram.token }\nRun $SKILL_DIR/run.ts and ${SKILL_DIR}/x\n",
    );
    const skill = onlySkill(tmp.path);
    const skillDir = dirname(skill.location);
    const config = { telegram: { token: "yaml-token" } };
    const fromYaml = renderSkillBody(skill, {
      config: (path) => getConfigValue(path, { env: {}, config }),
    });
    assert.equal(
      fromYaml,
      `Token: yaml-token\nSpaced: yaml-token\nRun ${skillDir}/run.ts and ${skillDir}/x`,
    );
    const env = { BUB_TELEGRAM_TOKEN: "env-token" };
    const fromEnv = renderSkillBody(skill, {
      config: (path) => getConfigValue(path, { env, config }),
    });
    assert.match(fromEnv, /^Token: env-token\nSpaced: env-token\n/);
  });

  test("config values: strings verbatim, booleans, numbers, structures as YAML, unknown as empty", () => {
    const values: Record<string, unknown> = {
      "a.s": "text",
      "a.t": true,
      "a.f": false,
      "a.n": 4096,
      "a.x": 1.5,
      "a.m": { openai: "k" },
      "a.l": ["x", "y"],
      "a.null": null,
    };
    const text =
      "${config.a.s}|${config.a.t}|${config.a.f}|${config.a.n}|${config.a.x}|${config.a.m}|${config.a.l}|${config.a.null}|${config.missing}";
    assert.equal(
      renderSkillText(text, "/s", { config: (path) => values[path] }),
      "text|true|false|4096|1.5|openai: k|- x\n- y||",
    );
    assert.equal(renderSkillText("[${config.model}]", "/s"), "[]");
    assert.equal(
      renderSkillText("[${config.model}]", "/s", {
        config: () => {
          throw new Error("invalid settings");
        },
      }),
      "[]",
    );
  });

  test("$$ becomes $, other $names stay, $RUNTIME becomes the runtime command", () => {
    assert.equal(
      renderSkillText("cost $$5 $HOME ${OTHER} $ alone $$SKILL_DIR $RUNTIME", "/s", {
        runtimeCommand: "node",
      }),
      "cost $5 $HOME ${OTHER} $ alone $SKILL_DIR node",
    );
  });

  test("a file made only of frontmatter is returned as its body; an unreadable file gives ''", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    const dir = writeSkillFile(
      join(tmp.path, ".agents", "skills"),
      "bare",
      "---\nname: bare\ndescription: d\n---\n",
    );
    const skill = onlySkill(tmp.path);
    assert.equal(renderSkillBody(skill), "---\nname: bare\ndescription: d\n---");
    rmSync(join(dir, "SKILL.md"));
    assert.equal(renderSkillBody(skill), "");
  });

  test("only the first frontmatter block is removed", (t) => {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    writeSkillFile(
      join(tmp.path, ".agents", "skills"),
      "two",
      "---\nname: two\ndescription: d\n---\nIntro\n---\nnot: frontmatter\n---\nEnd\n",
    );
    assert.equal(renderSkillBody(onlySkill(tmp.path)), "Intro\n---\nnot: frontmatter\n---\nEnd");
  });
});
