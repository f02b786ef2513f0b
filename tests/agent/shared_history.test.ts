/**
 * A long session's history handed to a model call as the kept context messages themselves, not
 * copies (issue 13; on by default on Bun, `setSharesHistory` runs it on every runtime): the call
 * sends what copies would send, the tape's context stays as it was, and no code but Bub's own
 * ever holds the kept messages (a hook, an outside client, a hook registered while a call runs).
 */
import { afterEach, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { setSharesHistory } from "../../src/agent/_shared_history.ts";
import type { ModelClient } from "../../src/agent/model_client.ts";
import { ModelRunner } from "../../src/agent/model_runner.ts";
import { ProviderModelClient } from "../../src/agent/providers.ts";
import { AgentHooks, type LlmCallRequest } from "../../src/kernel/agent_hooks.ts";
import { HookRuntime } from "../../src/kernel/hook_runtime.ts";
import { PluginManager } from "../../src/kernel/plugin.ts";
import { MockLlmServer, mockReply, type MockResponder } from "../../src/testing/mock_llm_server.ts";
import { incrementalMessages, sharedMessages } from "../../src/tape/_context_cache.ts";
import type { Tape } from "../../src/tape/tape.ts";
import { sessionTape } from "./_session_tape.ts";

let before = false;
beforeEach(() => {
  before = setSharesHistory(true);
});
afterEach(() => {
  setSharesHistory(before);
});

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

test("shared reads of a tape's context hold the kept messages themselves, copied reads never", async () => {
  const tape = await sessionTape(8);
  const first = (await sharedMessages(tape.store, tape.name, tape.context))!;
  const second = (await sharedMessages(tape.store, tape.name, tape.context))!;
  assert.equal(first.length, 32);
  assert.notEqual(first, second);
  assert.ok(first.every((message, i) => message === second[i]));
  const copies = (await incrementalMessages(tape.store, tape.name, tape.context))!;
  assert.deepEqual(copies, first);
  assert.ok(copies.every((message, i) => message !== first[i]));
});

test("calls on a shared history send the messages calls on copies send, call after call", async () => {
  const shared = await runCalls(await sessionTape(10), 3);
  setSharesHistory(false);
  const copied = await runCalls(await sessionTape(10), 3);
  assert.equal(shared.length, 3);
  assert.deepEqual(shared, copied);
});

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

test("an afterLlmCall hook registered while a shared call runs gets copies of its history", async () => {
  const tape = await sessionTape(10);
  const context = await contextJson(tape);
  const manager = new PluginManager();
  let seen = 0;
  // The call took its history (shared: no hook was there); a hook arrives while it runs.
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
