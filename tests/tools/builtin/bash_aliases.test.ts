/**
 * The `bash` tool's newer argument name: current Python Bub calls the command `cmd`, the seed
 * `command`. Both are accepted; the model is shown `command` only; both with different values is
 * a validation error naming both.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BubError } from "../../../src/kernel/errors.ts";
import { bashTools } from "../../../src/tools/builtin/bash.ts";
import { ToolExecutor } from "../../../src/tools/executor.ts";
import { ToolArgumentsError } from "../../../src/tools/_schema.ts";
import { runCommaCommand } from "../../../src/builtin/comma_command.ts";
import {
  builtinRegistry,
  eventually,
  memoryTape,
  scopedShells,
  shellIdOf,
  toolContext,
} from "./_helpers.ts";

describe("bash argument aliases", () => {
  test("a call giving cmd (Python Bub's name) runs that command", async (t) => {
    const [bash] = bashTools(scopedShells(t));
    assert.equal(await bash!.run({ cmd: "echo from-cmd" }, toolContext()), "from-cmd");
    assert.equal(await bash!.run({ command: "echo from-command" }, toolContext()), "from-command");
  });

  test("the model-facing schema documents command only, and command stays required", (t) => {
    const [bash] = bashTools(scopedShells(t));
    const schema = bash!.toSchema().function.parameters as {
      properties: Record<string, unknown>;
      required: string[];
    };
    assert.deepEqual(Object.keys(schema.properties), [
      "command",
      "cwd",
      "timeout_seconds",
      "background",
    ]);
    assert.deepEqual(schema.required, ["command"]);
  });

  test("cmd and command with the same value run once; with different values the call fails naming both", async (t) => {
    const [bash] = bashTools(scopedShells(t));
    assert.equal(
      await bash!.run({ cmd: "echo same", command: "echo same" }, toolContext()),
      "same",
    );
    await assert.rejects(
      bash!.run({ cmd: "echo one", command: "echo two" }, toolContext()),
      (error: unknown) => {
        assert.ok(error instanceof ToolArgumentsError);
        assert.equal(error.kind, "invalid_input");
        assert.deepEqual(error.errors.map((issue) => [issue.loc, issue.msg]), [
          [["cmd"], 'Give "command" or its alias "cmd", not both with different values'],
        ]);
        return true;
      },
    );
  });

  test("neither name is still the missing-command error", async (t) => {
    const [bash] = bashTools(scopedShells(t));
    const { error } = await new ToolExecutor().execute(
      [{ tool: bash!, arguments: { cwd: "." } }],
      { context: toolContext() },
    );
    assert.ok(error && BubError.isInstance(error));
    assert.equal(error.kind, "invalid_input");
    assert.match(JSON.stringify(error.details), /"loc":\["command"\].*Field required/);
  });

  test("a comma command written for Python Bub (,bash cmd='…' background=true) runs", async (t) => {
    const { registry, shells } = builtinRegistry(t);
    const run = (line: string) =>
      runCommaCommand({ line, tape: memoryTape(), state: { session_id: "cli:t" }, registry });
    assert.equal(await run(",bash cmd='printf py-bub'"), "py-bub");
    const started = String(await run(",bash cmd='echo late' background=true"));
    const id = shellIdOf(started);
    await eventually(() => shells.get(id).output.includes("late"));
  });
});
