/**
 * The idempotency key of a tool call: every tool the executor runs for a model's call gets the
 * call id as `ctx.callId`, the shell tool's command sees it as `BUB_TOOL_CALL_ID` (on the host
 * and in the sandbox), and tools may declare `idempotent: true` (kept by copies and the registry).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ENVIRONMENT_STATE_KEY } from "../../src/kernel/turn.ts";
import { bashTools } from "../../src/tools/builtin/bash.ts";
import { ToolExecutor } from "../../src/tools/executor.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { defineTool, type ToolContext } from "../../src/tools/tool.ts";
import { scopedShells, toolContext } from "./builtin/_helpers.ts";
import { layout, sandboxOf, SKIP } from "../environment/sandbox/_helpers.ts";

describe("tool call ids", () => {
  test("a tool run for a model's call gets the call id as ctx.callId, each call its own", async () => {
    const seen: (string | null | undefined)[] = [];
    const record = defineTool({
      name: "record",
      context: true,
      handler: (_args, ctx: ToolContext) => {
        seen.push(ctx.callId);
        return ctx.callId;
      },
    });
    const context = toolContext({ session_id: "s" });
    const { toolResults } = await new ToolExecutor().execute([
      { tool: record, arguments: {}, id: "call_a" },
      { tool: record, arguments: {}, id: "call_b" },
    ], { context });
    assert.deepEqual(toolResults, ["call_a", "call_b"]);
    assert.deepEqual(seen.sort(), ["call_a", "call_b"]);
    assert.equal(context.callId, undefined, "the shared context is not changed");
  });

  test("the shell tool's command sees the call id as BUB_TOOL_CALL_ID", async (t) => {
    const [bash] = bashTools(scopedShells(t));
    const { toolResults, error } = await new ToolExecutor().execute(
      [{ tool: bash!, arguments: { command: 'printf "%s" "$BUB_TOOL_CALL_ID"' }, id: "call_42" }],
      { context: toolContext({ session_id: "s" }) },
    );
    assert.equal(error, null);
    assert.deepEqual(toolResults, ["call_42"]);
  });

  test("a sandboxed shell command sees BUB_TOOL_CALL_ID too", { skip: SKIP }, async (t) => {
    const dirs = layout();
    const environment = sandboxOf(dirs);
    t.after(async () => {
      await environment[Symbol.asyncDispose]?.();
      dirs.remove();
    });
    const [bash] = bashTools(scopedShells(t));
    const state = { session_id: "s", [ENVIRONMENT_STATE_KEY]: environment };
    const { toolResults, error } = await new ToolExecutor().execute(
      [{ tool: bash!, arguments: { command: 'echo "key=$BUB_TOOL_CALL_ID"' }, id: "call_sb" }],
      { context: toolContext(state) },
    );
    assert.equal(error, null);
    assert.deepEqual(toolResults, ["key=call_sb"]);
  });

  test("idempotent: true is kept by renamed and model copies and by the registry; default false", () => {
    const again = defineTool({ name: "net.put", idempotent: true, handler: () => "ok" });
    const once = defineTool({ name: "net.post", handler: () => "ok" });
    assert.equal(again.idempotent, true);
    assert.equal(once.idempotent, false);
    assert.equal(again.withName("put").idempotent, true);
    assert.equal(again.toModelTool().idempotent, true);
    const registry = new ToolRegistry();
    registry.register(again);
    assert.equal(registry.get("net.put")?.idempotent, true);
  });
});
