/**
 * The agent loop end to end (builtin spec §16 items 1–22): `processInbound` on a builtin
 * `BubFramework` against a real `MockLlmServer`.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { isContextLengthError } from "../../src/agent/context_length.ts";
import type { SteeringInbox } from "../../src/kernel/channel.ts";
import type { StreamEvent, StreamState } from "../../src/kernel/stream.ts";
import type { TurnState } from "../../src/kernel/turn.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { CONTEXT_LENGTH_MESSAGE, mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { eventData, kinds, turnFixture } from "./_turn_fixture.ts";

type Msg = { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string };

function echoTool() {
  return defineTool({
    name: "tests.echo",
    description: "Echo the text",
    parameters: z.object({ text: z.string() }),
    handler: ({ text }) => `echo:${text}`,
  });
}

function messagesOf(body: Record<string, unknown>): Msg[] {
  return body.messages as Msg[];
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

describe("turn entry", () => {
  test("an empty prompt yields exactly the error text and final events and writes nothing to the tape", async () => {
    await using fx = await turnFixture({ script: [] });
    const result = await fx.turn("");
    assert.equal(result.modelOutput, "error: empty prompt");
    assert.deepEqual(fx.turns[0]!.events, [
      { kind: "text", data: { delta: "error: empty prompt" } },
      { kind: "final", data: { text: "error: empty prompt", ok: false } },
    ]);
    const agent = fx.builtin.runtime.agent;
    const state: TurnState = { _runtime_workspace: fx.home };
    const events = await collect(
      await agent.runStream({ sessionId: "cli:local", prompt: [], state }),
    );
    assert.deepEqual(events.map((e) => e.kind), ["text", "final"]);
    const final = events[1]!;
    assert.ok(final.kind === "final" && final.data.ok === false);
    assert.deepEqual(await fx.entries(), []);
    assert.equal(fx.server.requests.length, 0);
  });

  test("the first turn of a session writes the session/start anchor and handoff event before loop.start; a second turn writes no new bootstrap anchor", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("one"), mockReply.text("two")] });
    await fx.turn("first");
    let entries = await fx.entries();
    assert.deepEqual(kinds(entries).slice(0, 3), [
      "anchor:session/start",
      "event:handoff",
      "event:loop.start",
    ]);
    assert.deepEqual((entries[0]!.payload as { state: unknown }).state, { owner: "human" });
    await fx.turn("second");
    entries = await fx.entries();
    assert.equal(kinds(entries).filter((k) => k === "anchor:session/start").length, 1);
    assert.equal(eventData(entries, "loop.start").length, 2);
  });

  test("a temp/ session leaves no entries in the store; a normal session's entries appear only once its stream has finished", async () => {
    const persistedDuringCall: number[] = [];
    await using fx: Awaited<ReturnType<typeof turnFixture>> = await turnFixture({
      script: [mockReply.text("tmp"), mockReply.text("kept")],
      plugins: [{
        name: "peek",
        async afterLlmCall() {
          persistedDuringCall.push((await fx.entries()).length);
        },
      }],
    });
    await fx.turn({ sessionId: "temp/abc", channel: "cli", chatId: "local", content: "scratch" });
    assert.deepEqual(await fx.entries("temp/abc"), []);
    const store = fx.bub.getTapeStore<TapeStore>()!;
    assert.deepEqual(await store.listTapes(), []);
    await fx.turn("keep me");
    assert.deepEqual(persistedDuringCall, [0, 0]);
    assert.ok((await fx.entries()).length > 0);
  });

  test("without an override the provider gets the settings model; with context.model openai:gpt-4o it gets gpt-4o and the settings model is unchanged", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("a"), mockReply.text("b")] });
    await fx.turn("default");
    await fx.turn({
      channel: "cli",
      chatId: "local",
      content: "override",
      context: { model: "openai:gpt-4o" },
    });
    assert.equal(fx.bodies()[0]!.model, "gpt-test");
    assert.equal(fx.bodies()[1]!.model, "gpt-4o");
    assert.equal(fx.builtin.runtime.settings.model, "openai:gpt-test");
    const starts = eventData(await fx.entries(), "loop.start");
    assert.deepEqual(starts.map((d) => d.model), ["openai:gpt-test", "openai:gpt-4o"]);
  });
});

describe("steps", () => {
  test("a text-only reply yields text, the step's usage, then final ok with the text and ends with loop.step ok after one step", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("hello there", { chunks: 3 })] });
    const result = await fx.turn("say hi");
    assert.equal(result.modelOutput, "hello there");
    const events = fx.turns[0]!.events;
    assert.deepEqual(events.map((e) => e.kind), ["text", "text", "text", "usage", "final"]);
    assert.deepEqual(events[3]!.data, fx.turns[0]!.stream.usage);
    assert.deepEqual(events.at(-1)!.data, { ok: true, text: "hello there" });
    const steps = eventData(await fx.entries(), "loop.step");
    assert.equal(steps.length, 1);
    assert.equal(steps[0]!.status, "ok");
    assert.equal(steps[0]!.step, 1);
    assert.equal(typeof steps[0]!.elapsed_ms, "number");
    assert.ok(!Number.isNaN(Date.parse(String(steps[0]!.date))));
    assert.match(String(steps[0]!.date), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
    assert.equal(fx.server.requests.length, 1);
  });

  test("a tool-call reply yields tool_call, tool_result and final with tool_calls and tool_results, and triggers step 2", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("tests_echo", { text: "x" }, { id: "call_a" }),
        mockReply.text("done"),
      ],
      tools: [echoTool()],
    });
    const result = await fx.turn("use the tool");
    assert.equal(result.modelOutput, "done");
    const all = fx.turns[0]!.events;
    assert.equal(all.filter((e) => e.kind === "usage").length, 2, "one usage event per step");
    const events = all.filter((e) => e.kind !== "usage");
    assert.deepEqual(events.map((e) => e.kind), [
      "tool_call",
      "tool_result",
      "final",
      "text",
      "final",
    ]);
    const calls = [{
      id: "call_a",
      type: "function",
      function: { name: "tests_echo", arguments: '{"text":"x"}' },
    }];
    assert.deepEqual(events[0]!.data, { tool_calls: calls });
    assert.deepEqual(events[1]!.data, { tool_results: ["echo:x"] });
    assert.deepEqual(events[2]!.data, { ok: true, tool_calls: calls, tool_results: ["echo:x"] });
    assert.equal(fx.server.requests.length, 2);
    const steps = eventData(await fx.entries(), "loop.step");
    assert.deepEqual(steps.map((s) => s.status), ["continue", "ok"]);
  });

  test("(seed) with no continue_prompt result step 2's request ends with the tool messages and adds no user message", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("tests_echo", { text: "x" }, { id: "call_a" }),
        mockReply.text("done"),
      ],
      tools: [echoTool()],
    });
    await fx.turn("use the tool");
    const second = messagesOf(fx.bodies()[1]!);
    assert.deepEqual(second.map((m) => m.role), ["system", "user", "assistant", "tool"]);
    assert.equal(second[1]!.content, "use the tool");
    assert.equal(second.at(-1)!.tool_call_id, "call_a");
    assert.equal(second.at(-1)!.content, "echo:x");
    const starts = eventData(await fx.entries(), "loop.step.start");
    assert.deepEqual(starts.map((s) => s.prompt), ["use the tool", null]);
  });

  test("a plugin continue_prompt answer is step 2's prompt; it receives the step-1 prompt and a StreamState with step-1 usage", async () => {
    const seen: Array<{ prompt: unknown; usage: unknown }> = [];
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("tests_echo", { text: "x" }, {
          usage: { promptTokens: 11, completionTokens: 3 },
        }),
        mockReply.text("done"),
      ],
      tools: [echoTool()],
      plugins: [{
        name: "continuation",
        continuePrompt({ prompt, state }: { prompt: unknown; state: StreamState }) {
          seen.push({ prompt, usage: state.usage });
          return "custom continuation";
        },
      }],
    });
    await fx.turn("first prompt");
    assert.deepEqual(seen, [{
      prompt: "first prompt",
      usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 },
    }]);
    const second = messagesOf(fx.bodies()[1]!);
    assert.deepEqual(second.at(-1), { role: "user", content: "custom continuation" });
  });

  test("BUB_MAX_STEPS=2 with tool calls on every step throws max_steps_reached=2 and the last loop.step status is continue", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("tests_echo", { text: "1" }),
        mockReply.toolCall("tests_echo", { text: "2" }),
      ],
      tools: [echoTool()],
      env: { BUB_MAX_STEPS: "2" },
    });
    await assert.rejects(fx.turn("loop forever"), { message: "max_steps_reached=2" });
    const entries = await fx.entries();
    const steps = eventData(entries, "loop.step");
    assert.deepEqual(steps.map((s) => s.status), ["continue", "continue"]);
    assert.equal(fx.server.requests.length, 2);
    assert.equal(entries.filter((e) => e.kind === "tool_result").length, 2);
  });
});

describe("auto-handoff and model errors", () => {
  test("a context-length error on step 1 writes the auto_handoff/context_overflow anchor and loop.step auto_handoff, and step 2 re-sends the original prompt and succeeds", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.text("earlier"),
        mockReply.contextLengthError(),
        mockReply.text("recovered"),
      ],
    });
    await fx.turn("an older turn");
    const result = await fx.turn("the big prompt");
    assert.equal(result.modelOutput, "recovered");
    const entries = await fx.entries();
    const anchor = entries.find((e) =>
      e.kind === "anchor" &&
      (e.payload as { name: string }).name === "auto_handoff/context_overflow"
    );
    assert.ok(anchor, "auto-handoff anchor written");
    const anchorState = (anchor.payload as { state: Record<string, unknown> }).state;
    assert.equal(anchorState.reason, "context_length_exceeded");
    assert.match(String(anchorState.error), /maximum context length is 8192/);
    const steps = eventData(entries, "loop.step");
    assert.deepEqual(steps.map((s) => s.status), ["ok", "auto_handoff", "ok"]);
    assert.match(String(steps[1]!.error), /maximum context length/);
    const retry = messagesOf(fx.bodies()[2]!);
    // The handoff truncates history: only the system prompt and the original prompt are sent.
    assert.deepEqual(retry.map((m) => m.role), ["system", "user"]);
    assert.equal(retry[1]!.content, "the big prompt");
    assert.deepEqual(messagesOf(fx.bodies()[1]!).slice(1).map((m) => m.content), [
      "an older turn",
      "earlier",
      "the big prompt",
    ]);
  });

  test("a second context-length error in the same turn is rethrown with loop.step error", async () => {
    await using fx = await turnFixture({
      script: [mockReply.contextLengthError(), mockReply.contextLengthError()],
    });
    await assert.rejects(fx.turn("too big"), (error: Error) => {
      assert.match(String(error), /maximum context length is 8192/);
      return true;
    });
    const steps = eventData(await fx.entries(), "loop.step");
    assert.deepEqual(steps.map((s) => s.status), ["auto_handoff", "error"]);
    assert.equal(fx.server.requests.length, 2);
  });

  test("a non-context model error (HTTP 500) writes loop.step error with its text and propagates", async () => {
    await using fx = await turnFixture({
      script: [mockReply.error(500, "upstream exploded")],
    });
    await assert.rejects(fx.turn("hi"), /upstream exploded/);
    const entries = await fx.entries();
    const steps = eventData(entries, "loop.step");
    assert.equal(steps.length, 1);
    assert.equal(steps[0]!.status, "error");
    assert.match(String(steps[0]!.error), /HTTP 500.*upstream exploded/);
  });

  test("isContextLengthError matches the context-length phrasings and not a rate limit", () => {
    for (
      const text of [
        "maximum context length is 8192",
        "prompt is too long",
        "tokens > 200000 maximum",
        "token limit exceeded",
        CONTEXT_LENGTH_MESSAGE,
      ]
    ) assert.equal(isContextLengthError(text), true, text);
    assert.equal(isContextLengthError("rate limit reached"), false);
  });
});

describe("allowed tools and skills", () => {
  function hidden() {
    return defineTool({ name: "tests.hidden", agentUse: false, handler: () => "h" });
  }
  function allowedTool() {
    return defineTool({
      name: "tests_allowed_agent_tool",
      description: "Allowed",
      handler: () => "a",
    });
  }

  test("allowedTools with a padded name sends only that tool and lists only it in available_tools", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("ok")],
      tools: [echoTool(), allowedTool()],
    });
    const state = await fx.bub.buildState(
      { channel: "cli", chatId: "local", content: "x" },
      "cli:local",
    );
    await collect(
      await fx.builtin.runtime.agent.runStream({
        sessionId: "cli:local",
        prompt: "x",
        state,
        allowedTools: [" tests_allowed_agent_tool "],
      }),
    );
    const body = fx.bodies()[0]!;
    assert.deepEqual(
      (body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name),
      ["tests_allowed_agent_tool"],
    );
    const system = String(messagesOf(body)[0]!.content);
    assert.match(
      system,
      /<available_tools>\n- tests_allowed_agent_tool\(\): Allowed\n<\/available_tools>/,
    );
    assert.doesNotMatch(system, /tests_echo/);
    const start = eventData(await fx.entries(), "loop.start")[0]!;
    assert.deepEqual(start.allowed_tools, [" tests_allowed_agent_tool "]);
  });

  test("an allowed tool with agentUse=false is not sent to the model", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("ok")],
      tools: [hidden(), echoTool()],
    });
    const state = await fx.bub.buildState(
      { channel: "cli", chatId: "local", content: "x" },
      "cli:local",
    );
    await collect(
      await fx.builtin.runtime.agent.runStream({
        sessionId: "cli:local",
        prompt: "x",
        state,
        allowedTools: ["tests.hidden", "tests_echo"],
      }),
    );
    const body = fx.bodies()[0]!;
    assert.deepEqual(
      (body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name),
      ["tests_echo"],
    );
    assert.doesNotMatch(String(messagesOf(body)[0]!.content), /tests_hidden/);
  });

  test("an unknown allowed tool name makes stream iteration throw an error naming it", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("never")] });
    const state = await fx.bub.buildState(
      { channel: "cli", chatId: "local", content: "x" },
      "cli:local",
    );
    const stream = await fx.builtin.runtime.agent.runStream({
      sessionId: "cli:local",
      prompt: "x",
      state,
      allowedTools: ["no_such_tool"],
    });
    await assert.rejects(collect(stream), /no_such_tool/);
    assert.equal(fx.server.requests.length, 0);
  });

  test("allowedSkills limits available_skills and stores casefolded names in state.allowed_skills", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("ok"), mockReply.text("ok")] });
    const state = await fx.bub.buildState(
      { channel: "cli", chatId: "local", content: "x" },
      "cli:local",
    );
    await collect(
      await fx.builtin.runtime.agent.runStream({ sessionId: "cli:local", prompt: "x", state }),
    );
    const all = String(messagesOf(fx.bodies()[0]!)[0]!.content);
    const listed = [...all.matchAll(/^- ([a-z-]+):/gm)].map((m) => m[1]);
    assert.ok(listed.length >= 2, `several skills are listed without a restriction: ${listed}`);
    const keep = listed[0]!;
    await collect(
      await fx.builtin.runtime.agent.runStream({
        sessionId: "cli:local",
        prompt: "x",
        state,
        allowedSkills: [keep.toUpperCase()],
      }),
    );
    const limited = String(messagesOf(fx.bodies()[1]!)[0]!.content);
    const block = limited.slice(limited.indexOf("<available_skills>"));
    assert.deepEqual([...block.matchAll(/^- ([a-z-]+):/gm)].map((m) => m[1]), [keep]);
    assert.deepEqual(state.allowed_skills, [keep]);
  });
});

describe("steering", () => {
  test("steering messages queued for the session are sent as user messages in order before the step prompt and recorded before it; another session's are not", async () => {
    await using fx = await turnFixture({ script: [mockReply.text("ok")] });
    const inbox = fx.bub.getSteeringInbox()!;
    const mine = { session_id: "cli:local" };
    await inbox.enqueueMessage({
      channel: "cli",
      chatId: "local",
      sessionId: "cli:local",
      content: "steer one",
    }, mine);
    await inbox.enqueueMessage({
      channel: "cli",
      chatId: "local",
      sessionId: "cli:local",
      content: "steer two",
    }, mine);
    await inbox.enqueueMessage(
      { channel: "cli", chatId: "other", sessionId: "cli:other", content: "not mine" },
      { session_id: "cli:other" },
    );
    await fx.turn("the prompt");
    const sent = messagesOf(fx.bodies()[0]!).slice(1);
    assert.deepEqual(sent, [
      { role: "user", content: "steer one" },
      { role: "user", content: "steer two" },
      { role: "user", content: "the prompt" },
    ]);
    const recorded = (await fx.entries())
      .filter((e) => e.kind === "message")
      .map((e) => (e.payload as { content: unknown }).content);
    assert.deepEqual(recorded, ["steer one", "steer two", "the prompt", "ok"]);
    assert.equal(inbox.messageCount({ session_id: "cli:other" }), 1);
  });

  test("a steering message enqueued while the model replies slowly causes another step that carries it, and is drained once", async () => {
    let inbox: SteeringInbox | null = null;
    await using fx = await turnFixture({
      script: [
        async () => {
          // The request of step 1 has arrived; its reply is still to trickle out slowly.
          await inbox!.enqueueMessage(
            { channel: "cli", chatId: "local", sessionId: "cli:local", content: "also do this" },
            { session_id: "cli:local" },
          );
          return { text: ["thinking", " slowly", " done"], delayMs: 30 };
        },
        mockReply.text("saw the steer"),
        mockReply.text("next turn"),
      ],
    });
    inbox = fx.bub.getSteeringInbox();
    const result = await fx.turn("start");
    assert.equal(result.modelOutput, "thinking slowly donesaw the steer");
    assert.equal(fx.server.requests.length, 2);
    const second = messagesOf(fx.bodies()[1]!);
    assert.deepEqual(second.at(-1), { role: "user", content: "also do this" });
    assert.deepEqual(second.at(-2), { role: "assistant", content: "thinking slowly done" });
    const steps = eventData(await fx.entries(), "loop.step");
    assert.deepEqual(steps.map((s) => s.status), ["continue", "ok"]);
    await fx.turn("again");
    const third = messagesOf(fx.bodies()[2]!);
    assert.equal(third.filter((m) => m.content === "also do this").length, 1);
    assert.deepEqual(third.at(-1), { role: "user", content: "again" });
  });

  test("the loop's final StreamState usage equals the last step's usage", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("tests_echo", { text: "x" }, {
          usage: { promptTokens: 5, completionTokens: 1 },
        }),
        mockReply.text("done", {
          usage: { promptTokens: 20, completionTokens: 4, cachedTokens: 8 },
        }),
      ],
      tools: [echoTool()],
    });
    await fx.turn("go");
    const usage = fx.turns[0]!.stream.usage;
    assert.equal(usage?.prompt_tokens, 20);
    assert.equal(usage?.completion_tokens, 4);
    assert.equal(usage?.total_tokens, 24);
    const runs = eventData(await fx.entries(), "run");
    assert.deepEqual(runs.at(-1)!.usage, usage);
  });
});
