/**
 * A model call's history is a copy of the tape's context (issue 28 item 2: one path on every
 * runtime): the call sends the tape's history as it is; a hook or an outside client that changes
 * the request's messages changes what that call sends and never the tape's context.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatRequestBody } from "../../src/agent/providers/_chat_body.ts";
import type { ChatMessage, ModelClient, ModelRequest } from "../../src/agent/model_client.ts";
import { ModelRunner } from "../../src/agent/model_runner.ts";
import { parseModelId } from "../../src/agent/providers/provider_presets.ts";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { AgentHooks, type LlmCallRequest } from "../../src/kernel/agent_hooks.ts";
import { HookRuntime } from "../../src/kernel/hook_runtime.ts";
import { PluginManager } from "../../src/kernel/plugin_manager.ts";
import { MockLlmServer, mockReply, type MockResponder } from "../../src/testing/mock_llm_server.ts";
import type { Tape } from "../../src/tape/tape.ts";
import { sessionTape } from "./_session_tape.ts";

const ID = parseModelId("openai:bench");

function body(messages: Record<string, unknown>[]): string {
  const request: ModelRequest = {
    model: "openai:bench",
    messages: messages as unknown as ChatMessage[],
    maxTokens: 64,
  };
  return chatRequestBody("openai-chat", ID, request)!;
}

/** The context as fresh copies, as JSON (what the next call would send). */
async function contextJson(tape: Tape): Promise<string> {
  return JSON.stringify(await tape.readMessages());
}

/** Runs `calls` calls of a runner on `tape` (a reply each), returning the messages each sent. */
async function runCalls(
  tape: Tape,
  calls: number,
  options: {
    hooks?: AgentHooks | null;
    client?: (inner: ModelClient) => ModelClient;
    responder?: MockResponder;
  } = {},
): Promise<unknown[]> {
  await using server = await MockLlmServer.start({
    script: options.responder ??
      Array.from({ length: calls }, (_, i) => mockReply.text(`answer ${i}`)),
  });
  const inner = new ProviderModelClient({ apiKey: "k", apiBase: server.url });
  const runner = new ModelRunner(options.client?.(inner) ?? inner, options.hooks ?? null, {
    model: "openai:gpt-test",
  });
  for (let i = 0; i < calls; i++) {
    const stream = runner.run({
      tape,
      model: "openai:gpt-test",
      tools: [],
      systemPrompt: "sys",
      prompt: `next ${i}`,
      state: {},
    });
    for await (const _ of stream) { /* drain */ }
  }
  return server.requests.map((request) => (request.body as { messages: unknown }).messages);
}

test("a hook that changes the request's messages in place gets copies: the tape's context stays", async () => {
  const tape = await sessionTape(10);
  const context = await contextJson(tape);
  let edited = 0;
  const manager = new PluginManager();
  manager.register({
    name: "editor",
    afterLlmCall: ({ request }: { request: LlmCallRequest }) => {
      for (const message of request.messages) {
        if (message.role === "user") [message.content, edited] = ["edited", edited + 1];
      }
    },
  });
  await runCalls(tape, 1, { hooks: new AgentHooks(new HookRuntime(manager)) });
  assert.ok(edited > 10);
  // The call added its prompt and answer; the history before them is as it was.
  assert.equal((await contextJson(tape)).slice(0, context.length - 1), context.slice(0, -1));
});

test("an afterLlmCall hook registered while a call runs gets copies of its history", async () => {
  const tape = await sessionTape(10);
  const context = await contextJson(tape);
  const manager = new PluginManager();
  let seen = 0;
  // The call took its history with no hook there; a hook arrives while it runs.
  const responder = () => {
    manager.register({
      name: "late",
      afterLlmCall: ({ request }: { request: LlmCallRequest }) => {
        for (const message of request.messages) [message.content, seen] = ["late", seen + 1];
      },
    });
    return mockReply.text("answer");
  };
  await runCalls(tape, 1, { hooks: new AgentHooks(new HookRuntime(manager)), responder });
  assert.ok(seen > 10);
  assert.equal((await contextJson(tape)).slice(0, context.length - 1), context.slice(0, -1));
});

test("an outside client changing the messages it is handed gets copies: the tape's context stays", async () => {
  const tape = await sessionTape(10);
  const context = await contextJson(tape);
  const sent = await runCalls(tape, 1, {
    client: (inner) => ({
      specificationVersion: inner.specificationVersion,
      stream(request, options) {
        for (const message of request.messages) {
          (message as unknown as Record<string, unknown>).content = "outside";
        }
        return inner.stream(request, options);
      },
    }),
  });
  assert.ok((sent[0] as { content: string }[]).every((message) => message.content === "outside"));
  assert.equal((await contextJson(tape)).slice(0, context.length - 1), context.slice(0, -1));
});

/** The messages a runner sends for `prompt` on a tape of `turns` turns, through `client`. */
async function sentWith(
  client: (inner: ModelClient) => ModelClient,
): Promise<{ sent: unknown; history: Record<string, unknown>[] }> {
  await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
  const tape = await sessionTape(10);
  const history = JSON.parse(JSON.stringify(await tape.readMessages()));
  const runner = new ModelRunner(
    client(new ProviderModelClient({ apiKey: "k", apiBase: server.url })),
    null,
    { model: "openai:gpt-test" },
  );
  const stream = runner.run({
    tape,
    model: "openai:gpt-test",
    tools: [],
    systemPrompt: "sys",
    prompt: "hi",
    state: {},
  });
  for await (const _ of stream) { /* drain */ }
  return { sent: (server.requests[0]!.body as { messages: unknown }).messages, history };
}

/** The messages of the body built from plain copies of the request's messages. */
function expectedMessages(history: Record<string, unknown>[]): unknown {
  const plain = [{ role: "system", content: "sys" }, ...history, { role: "user", content: "hi" }];
  return JSON.parse(body(JSON.parse(JSON.stringify(plain)))).messages;
}

test("a runner with no hooks sends the tape's history as it is", async () => {
  const { sent: messages, history } = await sentWith((inner) => inner);
  assert.deepEqual(messages, expectedMessages(history));
});

test("a copy an outside client changes before the body is built is sent as changed", async () => {
  const { sent: messages, history } = await sentWith((inner) => ({
    specificationVersion: inner.specificationVersion,
    stream(request, options) {
      (request.messages[5] as unknown as Record<string, unknown>).content = "changed";
      return inner.stream(request, options);
    },
  }));
  history[4] = { ...history[4], content: "changed" };
  assert.deepEqual(messages, expectedMessages(history));
});

test("a copy the tape's own readMessages override changes is sent as changed", async () => {
  await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
  const tape = await sessionTape(10);
  const history = JSON.parse(JSON.stringify(await tape.readMessages()));
  const read = tape.readMessages;
  tape.readMessages = async function () {
    const messages = await read.call(this);
    messages[4] = Object.assign(messages[4]!, { content: "changed" });
    return messages;
  };
  const runner = new ModelRunner(
    new ProviderModelClient({ apiKey: "k", apiBase: server.url }),
    null,
    { model: "openai:gpt-test" },
  );
  const stream = runner.run({
    tape,
    model: "openai:gpt-test",
    tools: [],
    systemPrompt: "sys",
    prompt: "hi",
    state: {},
  });
  for await (const _ of stream) { /* drain */ }
  history[4] = { ...history[4], content: "changed" };
  assert.deepEqual(
    (server.requests[0]!.body as { messages: unknown }).messages,
    expectedMessages(history),
  );
});
