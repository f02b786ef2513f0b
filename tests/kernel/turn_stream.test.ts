/**
 * `bub.streamInbound(message)` yields a turn's model events as they happen and ends with `done`
 * carrying the TurnResult; `break` cancels the turn; a failing turn throws from the loop.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import process from "node:process";
import { isCancellation } from "../../src/kernel/agent_hooks.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { definePlugin } from "../../src/kernel/plugin.ts";
import type { TurnEvent } from "../../src/kernel/turn_stream.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";

const inbound = (content: string) => ({ channel: "cli", chatId: "local", content });

describe("streamInbound", () => {
  test("yields text deltas, the tool call and its result, usage, then done with the TurnResult last", async () => {
    const add = defineTool({
      name: "math.add",
      parameters: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => String(a + b),
    });
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("math_add", { a: 2, b: 3 }, { id: "c1" }),
        { text: ["The sum ", "is 5."], usage: { promptTokens: 9, completionTokens: 4 } },
      ],
      plugins: [definePlugin({ name: "math", tools: [add] })],
    });
    const events: TurnEvent[] = [];
    for await (const event of fx.bub.streamInbound(inbound("add 2 and 3"))) events.push(event);
    const kinds = events.map((event) => event.kind);
    assert.ok(kinds.includes("tool_call"), kinds.join(","));
    assert.ok(kinds.includes("tool_result"), kinds.join(","));
    assert.ok(kinds.includes("usage"), kinds.join(","));
    const text = events.flatMap((e) => e.kind === "text" ? [e.data.delta] : []).join("");
    assert.equal(text, "The sum is 5.");
    assert.ok(kinds.indexOf("tool_result") < kinds.indexOf("text"), kinds.join(","));
    const last = events.at(-1)!;
    assert.equal(last.kind, "done");
    if (last.kind === "done") assert.equal(last.data.result.modelOutput, "The sum is 5.");
    assert.equal(kinds.filter((kind) => kind === "done").length, 1);
  });

  test("break after the first text delta cancels the turn and the loop ends without done", async () => {
    await using fx = await turnFixture({
      script: [{ text: ["first ", "second ", "third"], delayMs: 200 }, { text: "next turn" }],
    });
    const seen: string[] = [];
    for await (const event of fx.bub.streamInbound(inbound("slow"))) {
      seen.push(event.kind);
      if (event.kind === "text") break;
    }
    assert.deepEqual(seen.filter((kind) => kind === "done"), []);
    const after = await fx.turn("again");
    assert.equal(after.modelOutput, "next turn", "the session answers after a cancelled stream");
  });

  test("an aborted signal makes the loop throw the abort reason", async () => {
    await using fx = await turnFixture({ script: [{ text: ["a", "b"], delayMs: 300 }] });
    const controller = new AbortController();
    const reason = new DOMException("stop", "AbortError");
    await assert.rejects(async () => {
      for await (const event of fx.bub.streamInbound(inbound("x"), { signal: controller.signal })) {
        if (event.kind === "text") controller.abort(reason);
      }
    }, (error: unknown) => error === reason);
  });

  test("a turn that fails throws its error from the loop", async () => {
    await using fx = await turnFixture({
      plugins: [definePlugin({
        name: "broken",
        loadState: () => {
          throw new Error("state store down");
        },
      })],
    });
    await assert.rejects(async () => {
      for await (const _ of fx.bub.streamInbound(inbound("x"))) { /* drain */ }
    }, /state store down/);
  });

  test("a tool turn streams the typed events in order: steps, the call, its start and end, results, text, done", async () => {
    const add = defineTool({
      name: "math.add",
      parameters: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => String(a + b),
    });
    await using fx = await turnFixture({
      script: [mockReply.toolCall("math_add", { a: 2, b: 3 }, { id: "c1" }), mockReply.text("5")],
      plugins: [definePlugin({ name: "math", tools: [add] })],
    });
    const events: TurnEvent[] = [];
    for await (const event of fx.bub.streamInbound(inbound("add"))) events.push(event);
    assert.deepEqual(events.map((event) => event.kind).filter((kind) => kind !== "usage"), [
      "step_start",
      "tool_call",
      "tool_start",
      "tool_end",
      "tool_result",
      "final",
      "step_end",
      "step_start",
      "text",
      "final",
      "step_end",
      "done",
    ]);
    const labels = events.map((event): string => {
      switch (event.kind) {
        case "step_start":
          return `step ${event.data.step}`;
        case "step_end":
          return `step ${event.data.step} ${event.data.status}`;
        case "tool_call":
          return event.data.tool_calls.map((call) => `${call.id}:${call.function.name}`).join();
        case "tool_start":
          return `${event.data.call_id} ${event.data.name} ${JSON.stringify(event.data.arguments)}`;
        case "tool_end":
          return `${event.data.name} ok=${event.data.ok} ${event.data.result} ${typeof event.data
            .duration_ms}`;
        case "tool_result":
          return JSON.stringify(event.data.tool_results);
        case "text":
          return event.data.delta;
        case "final":
          return `final ${event.data.ok}`;
        case "done":
          return `done ${event.data.result.modelOutput}`;
        default:
          return "";
      }
    }).filter(Boolean);
    assert.deepEqual(labels, [
      "step 1",
      "c1:math_add",
      'c1 math.add {"a":2,"b":3}',
      "math.add ok=true 5 number",
      '["5"]',
      "final true",
      "step 1 continue",
      "step 2",
      "5",
      "final true",
      "step 2 ok",
      "done 5",
    ]);
  });

  test("a failing tool ends with ok false, the normalized BubError and what the tool threw as its cause", async () => {
    const boom = defineTool({
      name: "boom",
      parameters: { type: "object" },
      handler: () => {
        throw new RangeError("out of range");
      },
    });
    await using fx = await turnFixture({
      script: [mockReply.toolCall("boom", {}, { id: "b1" }), mockReply.text("sorry")],
      plugins: [definePlugin({ name: "boom", tools: [boom] })],
    });
    const ends: TurnEvent[] = [];
    for await (const event of fx.bub.streamInbound(inbound("boom"))) {
      if (event.kind === "tool_end") ends.push(event);
    }
    assert.equal(ends.length, 1);
    const end = ends[0]!;
    assert.ok(end.kind === "tool_end");
    assert.equal(end.data.ok, false);
    assert.ok(BubError.isInstance(end.data.error));
    assert.equal((end.data.error as BubError).kind, "tool");
    assert.ok(end.data.error?.cause instanceof RangeError);
  });

  test("break while a tool runs cancels the turn: the tool sees the abort, saveState records the cancellation, nothing rejects unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      let toolAborted = false;
      const saved: unknown[] = [];
      const wait = defineTool({
        name: "wait",
        parameters: { type: "object" },
        context: true,
        handler: (_args, context) =>
          new Promise((_resolve, reject) => {
            context.signal?.addEventListener("abort", () => {
              toolAborted = true;
              reject(context.signal!.reason);
            }, { once: true });
          }),
      });
      await using fx = await turnFixture({
        script: [mockReply.toolCall("wait", {}, { id: "w1" }), mockReply.text("next turn")],
        plugins: [definePlugin({
          name: "waiter",
          tools: [wait],
          saveState: ({ error }: { error?: unknown }) => void saved.push(error),
        })],
      });
      const seen: string[] = [];
      for await (const event of fx.bub.streamInbound(inbound("wait"))) {
        seen.push(event.kind);
        if (event.kind === "tool_start") break;
      }
      assert.equal(seen.at(-1), "tool_start");
      assert.ok(!seen.includes("done"));
      assert.equal(toolAborted, true, "the running tool saw the turn's signal abort");
      assert.equal(saved.length, 1, "saveState ran once for the cancelled turn");
      assert.ok(isCancellation(saved[0]), `saveState got ${String(saved[0])}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
