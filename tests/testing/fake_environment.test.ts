import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeEnvironment } from "../../src/testing/fake_environment.ts";
import { createBuiltinTools } from "../../src/tools/builtin/mod.ts";
import { ShellManager } from "../../src/environment/shell_manager.ts";

function tool(name: string) {
  const found = createBuiltinTools({ shells: new ShellManager() }).find((candidate) =>
    candidate.name === name
  );
  assert.ok(found, name);
  return found;
}

test("FakeEnvironment keeps files in memory and resolves relative paths against its workspace", async () => {
  const env = new FakeEnvironment("/work");
  await env.writeText("a/b.txt", "hello");
  assert.equal(env.files.get("/work/a/b.txt"), "hello");
  assert.equal(await env.readText("/work/a/b.txt"), "hello");
  await assert.rejects(env.readText("missing.txt"), /ENOENT/);
});

test("FakeEnvironment answers scripted commands, records every spawn, and fails unknown ones with 127", async () => {
  const env = new FakeEnvironment("/work", { commands: { "git status": { stdout: "clean\n" } } });
  const known = await env.spawn("git status", { env: { A: "1" } });
  assert.equal(await known.wait(), 0);
  assert.equal(await new Response(known.stdout).text(), "clean\n");
  const unknown = await env.spawn(["rm", "-rf", "/"]);
  assert.equal(await unknown.wait(), 127);
  assert.deepEqual(env.spawns.map((spawn) => spawn.command), ["git status", "rm -rf /"]);
  assert.deepEqual(env.spawns[0]!.env, { A: "1" });
});

test("builtin fs tools run through a FakeEnvironment in the turn state, never touching the disk", async () => {
  const env = new FakeEnvironment("/virtual");
  const state = { _runtime_environment: env, _runtime_workspace: "/virtual" };
  const context = { tape: null, runId: null, state };
  const wrote = await tool("fs.write").run(
    { path: "notes/today.md", content: "one\ntwo\n" },
    context,
  );
  assert.equal(wrote, "wrote: /virtual/notes/today.md");
  assert.equal(await tool("fs.read").run({ path: "notes/today.md", offset: 1 }, context), "two");
  await tool("fs.edit").run({ path: "notes/today.md", old: "two", new: "three" }, context);
  assert.equal(env.files.get("/virtual/notes/today.md"), "one\nthree");
});

test("FakeEnvironment close marks it closed (the framework closes environments when running() exits)", async () => {
  const env = new FakeEnvironment();
  await env.close();
  assert.equal(env.closed, true);
});
