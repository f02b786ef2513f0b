/**
 * Safety plugins do not fail open (issue 10 item 2): plain-object decisions work like the
 * decision classes, and a policy plugin (`policy: true` or `hookimpl(fn, { failClosed: true })`)
 * that throws denies the call. Driven through `processInbound` against `MockLlmServer`.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import type { ToolCall } from "../../src/kernel/agent_hooks.ts";
import { definePlugin, hookimpl, type Plugin } from "../../src/kernel/plugin.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { turnFixture } from "./_turn_fixture.ts";

type Msg = { role: string; content?: unknown };

function echoTool(calls: unknown[]) {
  return defineTool({
    name: "tests.echo",
    description: "Echo the text",
    parameters: z.object({ text: z.string() }),
    handler: (args) => {
      calls.push(args);
      return `echo:${args.text}`;
    },
  });
}

/** Runs one turn where the model calls `tests_echo({ text: "hi" })` once, with `plugins`. */
async function toolTurn(plugins: Plugin[]) {
  const handled: unknown[] = [];
  const fx = await turnFixture({
    script: [mockReply.toolCall("tests_echo", { text: "hi" }), mockReply.text("done")],
    tools: [echoTool(handled)],
    plugins,
  });
  await fx.turn("go");
  const tool = (fx.bodies()[1]!.messages as Msg[]).findLast((m) => m.role === "tool")!;
  await fx[Symbol.asyncDispose]();
  return { handled, seen: String(tool.content) };
}

describe("plain-object tool decisions", () => {
  test("{ action: 'deny', reason } denies: the tool never runs and the model sees the reason", async () => {
    const { handled, seen } = await toolTurn([definePlugin({
      name: "deny",
      beforeToolCall: () => ({ action: "deny", reason: "not today" }),
    })]);
    assert.deepEqual(handled, []);
    assert.match(seen, /not today/);
  });

  test("{ action: 'replace', result } skips the tool and the model sees the result", async () => {
    const { handled, seen } = await toolTurn([definePlugin({
      name: "cache",
      beforeToolCall: () => ({ action: "replace", result: "cached" }),
    })]);
    assert.deepEqual(handled, []);
    assert.equal(seen, "cached");
  });

  test("{ action: 'proceed', args } rewrites the arguments the tool receives", async () => {
    const { handled, seen } = await toolTurn([definePlugin({
      name: "rewrite",
      beforeToolCall: ({ call }) => ({
        action: "proceed",
        args: { text: `${call.arguments.text}!` },
      }),
    })]);
    assert.deepEqual(handled, [{ text: "hi!" }]);
    assert.equal(seen, "echo:hi!");
  });

  test("an unknown action from a normal plugin is logged with a BubError naming it and the tool runs", async () => {
    await using logs = await captureLogs();
    const { handled } = await toolTurn([{
      name: "typo",
      beforeToolCall: () => ({ action: "dney", reason: "x" }),
    } as unknown as Plugin]);
    assert.deepEqual(handled, [{ text: "hi" }]);
    assert.ok(
      logs.warnings().some((m) =>
        m.includes("hook.agent_hook_failed") &&
        m.includes('Unknown tool call decision action "dney"')
      ),
      logs.warnings().join("\n"),
    );
  });
});

describe("policy plugins fail closed", () => {
  test("a policy: true plugin whose beforeToolCall throws denies the call with the error message", async () => {
    await using _logs = await captureLogs();
    const { handled, seen } = await toolTurn([definePlugin({
      name: "guard",
      policy: true,
      beforeToolCall: () => {
        throw new Error("policy backend unreachable");
      },
    })]);
    assert.deepEqual(handled, []);
    assert.match(seen, /policy backend unreachable/);
  });

  test("hookimpl(fn, { failClosed: true }) denies on a rejected promise; other hooks of the plugin stay isolated", async () => {
    await using _logs = await captureLogs();
    const after: string[] = [];
    const { handled, seen } = await toolTurn([definePlugin({
      name: "guard",
      beforeToolCall: hookimpl(async ({ call }: { call: ToolCall }) => {
        await Promise.resolve();
        throw new Error(`cannot vet ${call.tool}`);
      }, { failClosed: true }),
      afterToolCall: ({ call }) => {
        after.push(call.tool);
        throw new Error("audit sink down");
      },
    })]);
    assert.deepEqual(handled, []);
    assert.match(seen, /cannot vet tests_echo/);
    assert.deepEqual(after, ["tests_echo"]);
  });

  test("a policy returning an unknown action or a non-decision denies with a message naming it", async () => {
    await using _logs = await captureLogs();
    const typo = await toolTurn([{
      name: "guard",
      policy: true,
      beforeToolCall: () => ({ action: "allow" }),
    } as unknown as Plugin]);
    assert.deepEqual(typo.handled, []);
    assert.match(typo.seen, /Unknown tool call decision action \\?"allow\\?"/);
    const junk = await toolTurn([{
      name: "guard",
      policy: true,
      beforeToolCall: () => "deny",
    } as unknown as Plugin]);
    assert.deepEqual(junk.handled, []);
    assert.match(junk.seen, /plugin \\?"guard\\?" returned/);
  });

  test("the default stays fault-isolated: a throwing normal plugin lets the call proceed", async () => {
    await using _logs = await captureLogs();
    const { handled, seen } = await toolTurn([definePlugin({
      name: "flaky",
      beforeToolCall: () => {
        throw new Error("flaky");
      },
    })]);
    assert.deepEqual(handled, [{ text: "hi" }]);
    assert.equal(seen, "echo:hi");
  });
});

describe("LLM decisions", () => {
  test("{ action: 'finish', text } from beforeLlmCall answers without calling the provider", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("from the model")],
      plugins: [definePlugin({
        name: "canned",
        beforeLlmCall: () => ({ action: "finish", text: "canned answer" }),
      })],
    });
    const result = await fx.turn("hi");
    assert.equal(result.modelOutput, "canned answer");
    assert.equal(fx.bodies().length, 0);
  });

  test("a policy whose beforeLlmCall throws finishes the call with the error; the provider is not called", async () => {
    await using _logs = await captureLogs();
    await using fx = await turnFixture({
      script: [mockReply.text("from the model")],
      plugins: [definePlugin({
        name: "budget",
        policy: true,
        beforeLlmCall: () => {
          throw new Error("budget service down");
        },
      })],
    });
    const result = await fx.turn("hi");
    assert.equal(result.modelOutput, "budget service down");
    assert.equal(fx.bodies().length, 0);
  });

  test("a normal plugin whose beforeLlmCall throws is skipped and the provider answers", async () => {
    await using _logs = await captureLogs();
    await using fx = await turnFixture({
      script: [mockReply.text("from the model")],
      plugins: [definePlugin({
        name: "flaky",
        beforeLlmCall: () => {
          throw new Error("flaky");
        },
      })],
    });
    const result = await fx.turn("hi");
    assert.equal(result.modelOutput, "from the model");
    assert.equal(fx.bodies().length, 1);
  });
});
