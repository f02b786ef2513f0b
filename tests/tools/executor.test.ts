import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { BubError } from "../../src/kernel/errors.ts";
import type { TurnState } from "../../src/kernel/turn.ts";
import { ToolExecutor } from "../../src/tools/executor.ts";
import { defineTool, type ToolContext } from "../../src/tools/tool.ts";
import { agentHooksWith, boom, context, echoTool } from "./_fixtures.ts";

describe("ToolExecutor without hooks", () => {
  test("an empty invocation list gives no results and no error", async () => {
    assert.deepEqual(await new ToolExecutor().execute([]), {
      toolResults: [],
      error: null,
      held: [],
    });
  });

  test("builtin 93: invocations run concurrently and results keep call order", async () => {
    const { promise: secondStarted, resolve } = Promise.withResolvers<void>();
    const first = defineTool({
      name: "first",
      handler: async () => {
        // Deadlocks (and the guard rejects) unless `second` starts while `first` waits.
        let guard: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          secondStarted,
          new Promise((_, reject) => {
            guard = setTimeout(() => reject(new Error("invocations ran sequentially")), 5000);
          }),
        ]).finally(() => clearTimeout(guard));
        return "first done";
      },
    });
    const second = defineTool({ name: "second", handler: () => (resolve(), "second done") });
    const { toolResults, error } = await new ToolExecutor().execute([
      { tool: first, arguments: {} },
      { tool: second, arguments: {} },
    ]);
    assert.equal(error, null);
    assert.deepEqual(toolResults, ["first done", "second done"]);
  });

  test("builtin 94: an argument type error yields invalid_input with details.errors, named as invoked", async () => {
    const read = defineTool({
      name: "fs.read",
      parameters: z.object({ path: z.string(), limit: z.int().optional() }),
      handler: () => "never",
    });
    const { toolResults, error } = await new ToolExecutor().execute([
      { tool: read, name: "fs_read", arguments: { path: "a", limit: "lots" } },
    ]);
    assert.ok(BubError.isInstance(error));
    assert.equal(error.kind, "invalid_input");
    assert.equal(error.message, "Tool 'fs_read' argument validation failed.");
    const errors = error.details!.errors as Array<Record<string, unknown>>;
    assert.equal(errors.length, 1);
    assert.deepEqual({ ...errors[0], msg: undefined }, {
      type: "number_type",
      loc: ["limit"],
      msg: undefined,
      input: "lots",
    });
    assert.deepEqual(toolResults, [error.asDict()]);
  });

  test("builtin 95: a throwing tool yields `Tool '<n>' execution failed.` with details.error naming the error", async () => {
    class RuntimeError extends Error {
      override name = "RuntimeError";
    }
    const { toolResults, error } = await new ToolExecutor().execute([
      { tool: boom("plain"), arguments: {} },
      { tool: boom("custom", new RuntimeError("it's broken")), arguments: {} },
      { tool: boom("text", "just text"), arguments: {} },
    ]);
    assert.deepEqual(toolResults, [
      {
        kind: "tool",
        message: "Tool 'plain' execution failed.",
        details: { error: "Error('boom')" },
      },
      {
        kind: "tool",
        message: "Tool 'custom' execution failed.",
        details: { error: `RuntimeError("it's broken")` },
      },
      { kind: "tool", message: "Tool 'text' execution failed.", details: { error: "'just text'" } },
    ]);
    assert.equal(
      error!.message,
      "Tool 'text' execution failed.",
      "the last failure in input order wins",
    );
  });

  test("a BubError thrown by a tool passes through unchanged", async () => {
    const original = new BubError("not_found", "no such file", { path: "x" });
    const { toolResults, error } = await new ToolExecutor().execute([
      { tool: boom("lookup", original), arguments: {} },
      { tool: echoTool(), arguments: { ok: 1 } },
    ]);
    assert.equal(error, original);
    assert.deepEqual(toolResults, [{
      kind: "not_found",
      message: "no such file",
      details: { path: "x" },
    }, { ok: 1 }]);
  });

  test("a context tool without a context fails with invalid_input naming the invoked tool", async () => {
    const tool = defineTool({ name: "tape.info", context: true, handler: () => "info" });
    const { toolResults } = await new ToolExecutor().execute([{
      tool,
      name: "tape_info",
      arguments: {},
    }]);
    assert.deepEqual(toolResults, [
      {
        kind: "invalid_input",
        message: "Tool 'tape_info' requires context but none was provided.",
      },
    ]);
  });

  test("kernel 98: without hooks tools run unchanged, nothing fires and _runtime_tape is not set", async () => {
    let fired = 0;
    agentHooksWith({
      name: "spy",
      beforeToolCall: () => void fired++,
      afterToolCall: () => void fired++,
    });
    const state: TurnState = {};
    const seen: ToolContext[] = [];
    const tool = defineTool({
      name: "ctx",
      context: true,
      handler: (_a, ctx) => (seen.push(ctx), "ran"),
    });
    const { toolResults } = await new ToolExecutor().execute([{ tool, arguments: {} }], {
      context: context(state),
    });
    assert.deepEqual(toolResults, ["ran"]);
    assert.equal(fired, 0);
    assert.equal("_runtime_tape" in state, false);
    assert.equal(seen[0]!.state, state);
  });
});
