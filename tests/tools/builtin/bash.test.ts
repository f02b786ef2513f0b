import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { BubError } from "../../../src/kernel/errors.ts";
import { bashTools } from "../../../src/tools/builtin/bash.ts";
import { ToolExecutor } from "../../../src/tools/executor.ts";
import { eventually, scopedShells, shellIdOf, tempWorkspace, toolContext } from "./_helpers.ts";

describe("bash tools", () => {
  test("bash returns trimmed combined output, or (no output)", async (t) => {
    const [bash] = bashTools(scopedShells(t));
    const ctx = toolContext({ session_id: "s1" });
    assert.equal(await bash!.run({ command: "printf '\\n  hi  \\n\\n'" }, ctx), "hi");
    assert.equal(await bash!.run({ command: "echo err >&2" }, ctx), "err");
    assert.equal(await bash!.run({ command: "true" }, ctx), "(no output)");
  });

  test("bash runs in the workspace by default and resolves a relative cwd through it", async (t) => {
    const ws = await realpath(await tempWorkspace(t));
    const [bash] = bashTools(scopedShells(t));
    const ctx = toolContext({ _runtime_workspace: ws });
    assert.equal(await bash!.run({ command: "pwd" }, ctx), ws);
    await bash!.run({ command: "mkdir sub" }, ctx);
    assert.equal(await bash!.run({ command: "pwd", cwd: "sub" }, ctx), join(ws, "sub"));
  });

  test("bash exit code 7 yields a tool error whose details contain the code and the output", async (t) => {
    const [bash] = bashTools(scopedShells(t));
    const { toolResults, error } = await new ToolExecutor().execute(
      [{ tool: bash!, arguments: { command: "echo oops; exit 7" } }],
      { context: toolContext() },
    );
    assert.ok(error && BubError.isInstance(error));
    assert.equal(error.kind, "tool");
    assert.equal(error.message, "Tool 'bash' execution failed.");
    assert.match(String(error.details?.error), /command exited with code 7\\noutput:\\noops/);
    assert.deepEqual(toolResults[0], error.asDict());
  });

  test("a foreground timeout keeps running in the background and reports the shell id", async (t) => {
    const shells = scopedShells(t);
    const [bash, output, kill] = bashTools(shells);
    const ctx = toolContext();
    const text = String(
      await bash!.run({ command: "echo early; sleep 30", timeout_seconds: "0" }, ctx),
    );
    const id = shellIdOf(text);
    assert.equal(
      text,
      `command timed out after 0 seconds; continuing in background\nshell_id: ${id}`,
    );
    assert.equal(shells.get(id).status, "running");
    await eventually(() => shells.get(id).output.includes("early"));
    assert.match(String(await output!.run({ shell_id: id })), /^status: running$/m);
    assert.match(String(await kill!.run({ shell_id: id })), /^status: exited\nexit_code: -?\d+$/m);
  });

  test("background bash reports the id; bash.output shows the exit and then forgets the shell", async (t) => {
    const shells = scopedShells(t);
    const [bash, output] = bashTools(shells);
    const text = String(
      await bash!.run({ command: "echo done", background: "true" }, toolContext()),
    );
    const id = shellIdOf(text);
    assert.equal(
      text,
      `Shell started, shell_id: ${id}\n` +
        "Retrieve the output with bash_output or terminate it with bash_kill.",
    );
    await eventually(() => shells.get(id).returncode !== null);
    assert.equal(
      await output!.run({ shell_id: id }),
      `id: ${id}\nstatus: exited\nexit_code: 0\nnext_offset: 5\noutput:\ndone`,
    );
    await assert.rejects(output!.run({ shell_id: id }), { message: `unknown shell id: ${id}` });
  });

  test("bash.kill on a running shell reports an exit code and removes the shell", async (t) => {
    const shells = scopedShells(t);
    const [bash, , kill] = bashTools(shells);
    const id = shellIdOf(
      String(await bash!.run({ command: "sleep 30", background: true }, toolContext())),
    );
    const text = String(await kill!.run({ shell_id: id }));
    assert.match(text, new RegExp(`^id: ${id}\\nstatus: exited\\nexit_code: -?\\d+$`));
    assert.equal(shells.has(id), false);
  });

  test("bash.kill on a finished shell returns exit_code 0; unknown ids fail", async (t) => {
    const shells = scopedShells(t);
    const [bash, , kill] = bashTools(shells);
    const id = shellIdOf(
      String(await bash!.run({ command: "true", background: true }, toolContext())),
    );
    await eventually(() => shells.get(id).returncode !== null);
    assert.equal(await kill!.run({ shell_id: id }), `id: ${id}\nstatus: exited\nexit_code: 0`);
    await assert.rejects(kill!.run({ shell_id: id }), { message: `unknown shell id: ${id}` });
  });

  test("cancelling a foreground bash terminates the shell and rethrows", async (t) => {
    const shells = scopedShells(t);
    const [bash] = bashTools(shells);
    const controller = new AbortController();
    const running = bash!.run({ command: "sleep 30" }, {
      ...toolContext(),
      signal: controller.signal,
    });
    await eventually(() => shells.shells.length === 1);
    controller.abort(new Error("stop"));
    await assert.rejects(running, { message: "stop" });
    assert.equal(shells.shells.length, 0);
  });
});
