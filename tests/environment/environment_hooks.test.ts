import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEnvironmentHooks } from "../../src/builtin/environment_hooks.ts";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";
import { ShellManager } from "../../src/environment/shell_manager.ts";
import { ShellScope } from "../../src/environment/shell_scope.ts";
import { FAST, killGroup, liveMembers } from "./_helpers.ts";

describe("builtin environment hooks", () => {
  test("provideEnvironment returns a LocalEnvironment rooted at the framework workspace", () => {
    const hooks = createEnvironmentHooks({ shells: new ShellManager() });
    const a = hooks.provideEnvironment({ sessionId: "cli:a", workspace: "/srv/work" });
    const b = hooks.provideEnvironment({ sessionId: "cli:b", workspace: "/srv/work" });
    assert.ok(a instanceof LocalEnvironment);
    assert.equal(a.workspace, "/srv/work");
    assert.notEqual(a, b);
  });

  test("provideLifespan yields once and its cleanup terminates the scope's shells", async () => {
    const shells = new ShellManager({ timings: FAST });
    const hooks = createEnvironmentHooks({ shells });
    const lifespan = hooks.provideLifespan();
    const first = await lifespan.next();
    assert.equal(first.done, false);
    assert.ok(first.value instanceof ShellScope);
    const shell = await shells.start({ command: "sleep 300 & sleep 300", sessionId: "cli:a" });
    try {
      assert.equal(shell.process.isRunning(), true);
      const last = await lifespan.next();
      assert.equal(last.done, true);
      assert.deepEqual(liveMembers(shell.process.pid!), []);
      assert.equal(shells.has(shell.id), false);
      await assert.rejects(shells.start({ command: "true" }), {
        message: "shell runtime is closed",
      });
    } finally {
      killGroup(shell.process.pid);
    }
  });

  test("each lifespan gets a fresh scope; a later scope accepts shells again", async () => {
    const shells = new ShellManager({ timings: FAST });
    const hooks = createEnvironmentHooks({ shells });
    const one = hooks.provideLifespan();
    const scopeOne = (await one.next()).value;
    await one.return(undefined);
    const two = hooks.provideLifespan();
    const scopeTwo = (await two.next()).value;
    assert.notEqual(scopeOne, scopeTwo);
    assert.equal(await shells.run({ command: "echo again" }), "again");
    await two.return(undefined);
  });
});
