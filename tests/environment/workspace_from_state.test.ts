import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { workspaceFromState } from "../../src/environment/from_state.ts";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";
import { BuiltinRuntime } from "../../src/builtin/runtime.ts";
import { sessionTapeName } from "../../src/tape/naming.ts";
import { skillTool } from "../../src/tools/builtin/skill.ts";
import type { TurnState } from "../../src/kernel/turn.ts";
import { kernelFixture, tempDir } from "../_helpers/kernel.ts";
import { memoryTape } from "../tools/builtin/_helpers.ts";

/** A workspace holding one skill, so the skill tool shows which workspace it resolved. */
function workspaceWithSkill(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, ".agents", "skills", name), { recursive: true });
  writeFileSync(
    join(dir, ".agents", "skills", name, "SKILL.md"),
    `---\nname: ${name}\ndescription: Lives in ${name}\n---\nbody of ${name}\n`,
  );
  return dir;
}

describe("workspaceFromState: one resolver for the agent and the builtin tools", () => {
  test("the agent's session tape and the skill tool agree where the two old resolvers differed", async () => {
    using tmp = tempDir("bub-workspace-");
    using fx = kernelFixture({ builtin: true });
    const agent = new BuiltinRuntime(fx.framework, { env: {} }).agent;
    const skills = skillTool({ home: join(tmp.path, "home"), builtinSkillDirs: [] });
    const envWorkspace = workspaceWithSkill(tmp.path, "in-environment");
    const urlWorkspace = workspaceWithSkill(tmp.path, "in-url");
    const cases: [string, TurnState, string][] = [
      // No `_runtime_workspace`, an environment: the agent used the cwd, the tools the environment.
      ["environment", { _runtime_environment: new LocalEnvironment(envWorkspace) }, envWorkspace],
      // A `file:` URL: the agent used the cwd, the tools the URL's path.
      ["file URL", { _runtime_workspace: pathToFileURL(urlWorkspace) }, urlWorkspace],
    ];
    for (const [label, state, expected] of cases) {
      assert.equal(workspaceFromState(state), expected, label);
      assert.equal(
        agent.sessionTape("s1", state).name,
        sessionTapeName("s1", expected),
        `${label}: the session tape is named for the resolved workspace`,
      );
      const listing = await skills.run({}, { tape: memoryTape(), runId: "r", state });
      assert.match(String(listing), new RegExp(`- ${expected.split("/").pop()}`), label);
    }
  });

  test("strings win, '~' expands, blank or missing falls back to the cwd, other values throw", () => {
    const env = new LocalEnvironment("/srv/env");
    assert.equal(
      workspaceFromState({ _runtime_workspace: "/srv/a", _runtime_environment: env }),
      "/srv/a",
    );
    assert.equal(workspaceFromState({ _runtime_workspace: "~" }), homedir());
    assert.equal(workspaceFromState({ _runtime_workspace: "~/w" }), join(homedir(), "w"));
    assert.equal(workspaceFromState({ _runtime_workspace: "rel" }), resolve("rel"));
    assert.equal(workspaceFromState({}), process.cwd());
    assert.equal(workspaceFromState({ _runtime_workspace: "  " }), process.cwd());
    assert.equal(
      workspaceFromState({ _runtime_workspace: "  ", _runtime_environment: env }),
      "/srv/env",
    );
    assert.throws(
      () => workspaceFromState({ _runtime_workspace: 42 }),
      (error: unknown) =>
        error instanceof TypeError &&
        /runtime workspace must be a filesystem path/.test(error.message),
    );
  });
});
