/**
 * `bub.streamInbound(message)` yields a turn's model events as they happen and ends with `done`
 * carrying the TurnResult; `break` cancels the turn; a failing turn throws from the loop.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
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
});
