/**
 * Golden SSE fixtures replayed through the real AI SDK providers: a provider upgrade that changes
 * how a stream is parsed changes these event sequences and fails here.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import type { ModelEvent } from "../../src/agent/model_client.ts";
import {
  type FetchLike,
  ProviderModelClient,
} from "../../src/agent/providers/provider_model_client.ts";

interface Recorded {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

async function fixtureFetch(name: string, recorded: Recorded[]): Promise<FetchLike> {
  const sse = await readFile(new URL(`../fixtures/sse/${name}`, import.meta.url), "utf8");
  return (input, init) => {
    recorded.push({
      url: String(input instanceof Request ? input.url : input),
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: JSON.parse(String(init?.body)),
    });
    return Promise.resolve(
      new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } }),
    );
  };
}

async function collect(iterable: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const request = {
  messages: [{ role: "user" as const, content: "list files" }],
  tools: [{
    type: "function" as const,
    function: {
      name: "bash",
      description: "Run a shell command.",
      parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] },
    },
  }],
  maxTokens: 1024,
};

const chatEvents = (provider: string, model: string): ModelEvent[] => [
  { type: "start", provider, model },
  { type: "text", delta: "Let me " },
  { type: "text", delta: "check." },
  { type: "tool_call", index: 0, id: "call_abc", name: "bash", arguments: '{"cmd":"ls -la"}' },
  {
    type: "usage",
    usage: {
      prompt_tokens: 82,
      completion_tokens: 17,
      total_tokens: 99,
      prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
  },
  { type: "finish", reason: "tool-calls", rawReason: "tool_calls" },
];

describe("golden SSE fixtures through the real providers", () => {
  test("an OpenAI-compatible chat stream gives text, one assembled tool call, usage, finish", async () => {
    const recorded: Recorded[] = [];
    const client = new ProviderModelClient({
      apiKey: "sk-or-test",
      fetch: await fixtureFetch("openai_chat_text_tool_usage.sse", recorded),
    });
    const events = await collect(
      client.stream({ ...request, model: "openrouter:openrouter/free" }),
    );
    assert.deepEqual(events, chatEvents("openrouter", "openrouter/free"));
    assert.equal(recorded[0]!.url, "https://openrouter.ai/api/v1/chat/completions");
    assert.equal(recorded[0]!.body.model, "openrouter/free");
  });

  test("the OpenAI chat provider parses the same stream identically", async () => {
    const recorded: Recorded[] = [];
    const client = new ProviderModelClient({
      apiKey: "sk-test",
      fetch: await fixtureFetch("openai_chat_text_tool_usage.sse", recorded),
    });
    const events = await collect(client.stream({ ...request, model: "openai:gpt-4o" }));
    // The OpenAI provider keeps only the usage fields it knows (no `audio_tokens`).
    const expected = chatEvents("openai", "gpt-4o");
    expected[4] = {
      type: "usage",
      usage: {
        prompt_tokens: 82,
        completion_tokens: 17,
        total_tokens: 99,
        prompt_tokens_details: { cached_tokens: 64 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    };
    assert.deepEqual(events, expected);
    assert.equal(recorded[0]!.url, "https://api.openai.com/v1/chat/completions");
  });

  test("an Anthropic stream with input_json_delta tool use gives text, tool call, usage, finish", async () => {
    const recorded: Recorded[] = [];
    const client = new ProviderModelClient({
      apiKey: "sk-ant-test",
      fetch: await fixtureFetch("anthropic_text_tool_use.sse", recorded),
    });
    const events = await collect(
      client.stream({ ...request, model: "anthropic:claude-sonnet-4-5" }),
    );
    assert.deepEqual(events, [
      { type: "start", provider: "anthropic", model: "claude-sonnet-4-5" },
      { type: "text", delta: "Listing " },
      { type: "text", delta: "files." },
      { type: "tool_call", index: 0, id: "toolu_01A", name: "bash", arguments: '{"cmd": "ls"}' },
      {
        type: "usage",
        usage: {
          prompt_tokens: 70,
          completion_tokens: 31,
          total_tokens: 101,
          prompt_tokens_details: { cached_tokens: 50 },
        },
      },
      { type: "finish", reason: "tool-calls", rawReason: "tool_use" },
    ]);
    assert.equal(recorded[0]!.url, "https://api.anthropic.com/v1/messages");
  });

  test("an OpenAI Responses stream gives text, a function call, usage, finish", async () => {
    const recorded: Recorded[] = [];
    const client = new ProviderModelClient({
      apiKey: "sk-test",
      fetch: await fixtureFetch("openai_responses_text_tool.sse", recorded),
    });
    const events = await collect(
      client.stream({ ...request, model: "openai-responses:gpt-4.1" }),
    );
    assert.deepEqual(events, [
      { type: "start", provider: "openai-responses", model: "gpt-4.1" },
      { type: "text", delta: "On " },
      { type: "text", delta: "it." },
      {
        type: "tool_call",
        index: 0,
        id: "call_xyz",
        name: "fs_read",
        arguments: '{"path":"README.md"}',
      },
      {
        type: "usage",
        usage: {
          prompt_tokens: 120,
          completion_tokens: 25,
          total_tokens: 145,
          prompt_tokens_details: { cached_tokens: 100 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      },
      { type: "finish", reason: "tool-calls", rawReason: null },
    ]);
    assert.equal(recorded[0]!.url, "https://api.openai.com/v1/responses");
  });
});
