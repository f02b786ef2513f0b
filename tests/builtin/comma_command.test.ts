import { describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommaCommand } from "../../src/builtin/comma_command.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import type { Tape } from "../../src/tape/tape.ts";
import {
  builtinRegistry,
  eventually,
  memoryTape,
  shellIdOf,
  tempWorkspace,
} from "../tools/builtin/_helpers.ts";

async function commandEvents(tape: Tape): Promise<Record<string, unknown>[]> {
  const events = await tape.query().kinds("event").all();
  return events
    .filter((entry) => entry.payload.name === "command")
    .map((entry) => entry.payload.data as Record<string, unknown>);
}

async function setup(t: TestContext) {
  const ws = await tempWorkspace(t);
  const { registry, shells } = builtinRegistry(t);
  const tape = memoryTape();
  const state: Record<string, unknown> = { _runtime_workspace: ws, session_id: "cli:test" };
  const run = (line: string) => runCommaCommand({ line, tape, state, registry });
  return { ws, registry, shells, tape, state, run };
}

describe("comma commands", () => {
  test(",model openai:gpt-4o sets state.model, returns the notice and records model_switch", async (t) => {
    const { tape, state, run } = await setup(t);
    assert.equal(
      await run(",model openai:gpt-4o"),
      "Session model set to openai:gpt-4o (applies from the next turn).",
    );
    assert.equal(state.model, "openai:gpt-4o");
    const events = await tape.query().kinds("event").all();
    assert.deepEqual(events.map((e) => e.payload.name), ["model_switch", "command"]);
  });

  test("every command records command {raw,name,status,elapsed_ms,output,date}, failures too", async (t) => {
    const { tape, run } = await setup(t);
    await run(",tape.handoff name=phase-1 summary='all done'");
    await assert.rejects(run(",fs.read path=missing.txt"));
    const [ok, failed] = await commandEvents(tape);
    assert.deepEqual(Object.keys(ok!), ["raw", "name", "status", "elapsed_ms", "output", "date"]);
    assert.equal(ok!.raw, "tape.handoff name=phase-1 summary='all done'");
    assert.equal(ok!.name, "tape.handoff");
    assert.equal(ok!.status, "ok");
    assert.equal(ok!.output, "anchor added: phase-1");
    assert.ok(Number.isInteger(ok!.elapsed_ms) && (ok!.elapsed_ms as number) >= 0);
    assert.match(String(ok!.date), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
    assert.equal(failed!.status, "error");
    assert.equal(failed!.name, "fs.read");
    assert.match(String(failed!.output), /ENOENT|No such file/i);
    const [anchor] = await tape.query().kinds("anchor").all();
    assert.deepEqual(anchor!.payload.state, { summary: "all done" });
  });

  test(",echo hello runs through bash in the workspace and returns hello", async (t) => {
    const { ws, tape, run } = await setup(t);
    assert.equal(await run(",echo hello"), "hello");
    assert.equal(await run(",pwd"), await realpath(ws));
    const [event] = await commandEvents(tape);
    assert.equal(event!.name, "echo");
    assert.equal(event!.raw, "echo hello");
  });

  test(",fs_read path=x (a model alias) runs as a shell command, not the tool", async (t) => {
    const { ws, registry, tape, state } = await setup(t);
    await writeFile(join(ws, "x"), "file content");
    registry.register(defineTool({
      name: "bash",
      context: true,
      parameters: { type: "object", properties: { command: { type: "string" } } },
      handler: (args) => `shell: ${(args as { command: string }).command}`,
    }));
    assert.equal(
      await runCommaCommand({ line: ",fs_read path=x", tape, state, registry }),
      "shell: fs_read path=x",
    );
  });

  test(", alone fails with empty command and records nothing", async (t) => {
    const { tape, run } = await setup(t);
    await assert.rejects(run(","), { message: "empty command" });
    await assert.rejects(run(",   "), { message: "empty command" });
    assert.deepEqual(await tape.query().all(), []);
  });

  test("unbalanced quotes fail with No closing quotation and run nothing", async (t) => {
    const { ws, tape, run } = await setup(t);
    await assert.rejects(run(",fs.write path=a.txt content='oops"), {
      message: "No closing quotation",
    });
    await assert.rejects(run(',echo "half'), { message: "No closing quotation" });
    assert.deepEqual(await tape.query().all(), []);
    await assert.rejects(realpath(join(ws, "a.txt")), /ENOENT/);
  });

  test("a positional after keywords fails and is recorded as an error", async (t) => {
    const { tape, run } = await setup(t);
    await assert.rejects(run(",tape.handoff name=a extra"), {
      message: "positional argument 'extra' cannot appear after keyword arguments",
    });
    const [event] = await commandEvents(tape);
    assert.equal(event!.status, "error");
    assert.equal(await tape.query().kinds("anchor").all().then((a) => a.length), 0);
  });

  test("quoting is shell-like: ,bash command='echo  a  b' passes one value", async (t) => {
    const { run } = await setup(t);
    assert.equal(await run(",bash command='echo  \"a  b\"'"), "a  b");
    assert.equal(await run(",bash command='printf %s  x'"), "x");
  });

  test("values are coerced by the tool: ,bash.output shell_id=<id> limit=5", async (t) => {
    const { shells, run } = await setup(t);
    const id = shellIdOf(await run(",bash command='echo 0123456789' background=true"));
    await eventually(() => shells.get(id).returncode !== null);
    assert.equal(
      await run(`,bash.output shell_id=${id} limit=5`),
      `id: ${id}\nstatus: exited\nexit_code: 0\nnext_offset: 5\noutput:\n01234`,
    );
  });

  test("positional values map onto the schema's properties in order", async (t) => {
    const { tape, state, run } = await setup(t);
    assert.equal(
      await run(",reasoning_effort high"),
      "Session reasoning effort set to high (applies from the next turn).",
    );
    assert.equal(state.reasoning_effort, "high");
    assert.equal(await run(",skill nope"), "(no such skill)");
    await assert.rejects(run(",tape.search error"), {
      message: "Tool 'tape.search' accepts keyword arguments only, got positional argument 'error'",
    });
    await assert.rejects(
      run(",tape.anchors one"),
      /takes 0 positional argument\(s\) but 1 were given/,
    );
    await assert.rejects(run(",skill gh name=gh"), /got multiple values for argument 'name'/);
    assert.match(await run(",tape.search query=high limit=5"), /^\[tape\.search\]: \d+ matches/);
    assert.equal((await commandEvents(tape)).length, 6);
  });

  test("non-string results are stringified as JSON", async () => {
    const tape = memoryTape();
    const registry = new ToolRegistry([
      defineTool({ name: "stats", handler: () => ({ n: 1, names: ["é"] }) }),
    ]);
    assert.equal(
      await runCommaCommand({ line: ",stats", tape, state: {}, registry }),
      '{"n": 1, "names": ["é"]}',
    );
  });

  test('an array or object parameter takes JSON text: ,pick paths=["a","b"] opts={...}', async () => {
    const tape = memoryTape();
    const registry = new ToolRegistry([
      defineTool({
        name: "pick",
        parameters: {
          type: "object",
          properties: {
            paths: { type: "array", items: { type: "integer" } },
            opts: { type: "object", properties: { deep: { type: "boolean" } } },
            note: { type: "string" },
          },
        },
        handler: (args: Record<string, unknown>) => args,
      }),
    ]);
    const run = (line: string) => runCommaCommand({ line, tape, state: {}, registry });
    assert.equal(
      await run(`,pick paths='["1","2"]' opts='{"deep":"yes"}' note='["kept as text"]'`),
      '{"paths": [1, 2], "opts": {"deep": true}, "note": "[\\"kept as text\\"]"}',
      "items coerced as usual; a string parameter keeps the text",
    );
    // Text that is not the wanted JSON stays text, for the tool's validator (if any) to reject.
    assert.equal(await run(`,pick paths='[1,'`), '{"paths": "[1,"}', "bad JSON");
    assert.equal(
      await run(`,pick paths='{"a":1}'`),
      '{"paths": "{\\"a\\":1}"}',
      "an object is no array",
    );
  });

  test("a failing shell fallback rethrows and records the error text", async (t) => {
    const { tape, run } = await setup(t);
    await assert.rejects(run(",exit 3"), /command exited with code 3/);
    const [event] = await commandEvents(tape);
    assert.equal(event!.status, "error");
    assert.match(String(event!.output), /^command exited with code 3\noutput:\n\(no output\)$/);
  });
});
