/**
 * What `ProviderModelClient` sends over real HTTP (recorded by the mock LLM server) and how it
 * reports provider failures.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { ModelEvent, ModelRequest } from "../../src/agent/model_client.ts";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";

async function collect(iterable: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const hi: ModelRequest["messages"] = [{ role: "user", content: "hi" }];
const CONTEXT_LENGTH =
  /context.{0,20}(?:length|window)|maximum.{0,20}context|token.{0,10}limit|prompt.{0,10}too long|tokens? > \d+ maximum/i;

function body(server: MockLlmServer, index = -1): Record<string, unknown> {
  return server.requests.at(index)!.body as Record<string, unknown>;
}

describe("request arguments", () => {
  test("streaming OpenAI-compatible calls send stream:true and stream_options include_usage; the final usage chunk is reported", async () => {
    await using server = await MockLlmServer.start({
      script: [mockReply.text("ok", { usage: { promptTokens: 7, completionTokens: 2 } })],
    });
    const client = new ProviderModelClient({ apiBase: server.url });
    const events = await collect(
      client.stream({ model: "openrouter:openrouter/free", messages: hi }),
    );
    assert.equal(body(server).stream, true);
    assert.deepEqual(body(server).stream_options, { include_usage: true });
    assert.deepEqual(events.find((e) => e.type === "usage"), {
      type: "usage",
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
  });

  test("Anthropic calls send cache_control ephemeral and no stream_options", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
    const client = new ProviderModelClient({ apiKey: "sk-ant", apiBase: server.url });
    await collect(client.stream({
      model: "anthropic:claude-test",
      messages: hi,
      maxTokens: 300,
      completionArgs: { stream_options: { include_usage: true }, temperature: 0.5 },
    }));
    assert.equal(server.requests[0]!.path, "/v1/messages");
    assert.deepEqual(body(server).cache_control, { type: "ephemeral" });
    assert.equal("stream_options" in body(server), false);
    assert.equal(body(server).stream, true);
    assert.equal(body(server).max_tokens, 300);
    assert.equal(body(server).temperature, 0.5);
  });

  test("completion_args are forwarded but managed model, max_tokens, stream and stream_options win", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
    const client = new ProviderModelClient({ apiBase: server.url });
    await collect(client.stream({
      model: "vllm:qwen",
      messages: hi,
      maxTokens: 4096,
      completionArgs: {
        temperature: 0.2,
        top_p: 0.9,
        model: "other",
        max_tokens: 5,
        stream: false,
        stream_options: { include_usage: false },
      },
    }));
    const sent = body(server);
    assert.equal(sent.temperature, 0.2);
    assert.equal(sent.top_p, 0.9);
    assert.equal(sent.model, "qwen");
    assert.equal(sent.max_tokens, 4096);
    assert.equal(sent.stream, true);
    assert.deepEqual(sent.stream_options, { include_usage: true });
  });

  test("state reasoning_effort high overrides completion_args reasoning_effort low", async () => {
    await using server = await MockLlmServer.start({
      script: [mockReply.text("ok"), mockReply.text("ok")],
    });
    const client = new ProviderModelClient({ apiKey: "k", apiBase: server.url });
    const args = { completionArgs: { reasoning_effort: "low" }, reasoningEffort: "high" };
    await collect(client.stream({ model: "openai:gpt-4o", messages: hi, ...args }));
    assert.equal(body(server).reasoning_effort, "high");
    await collect(client.stream({ model: "openai-responses:gpt-4o", messages: hi, ...args }));
    assert.equal(server.requests[1]!.path, "/v1/responses");
    assert.deepEqual(body(server).reasoning, { effort: "high" });
  });

  test("API keys travel as headers only, never in the body or the URL", async () => {
    await using server = await MockLlmServer.start({
      script: [mockReply.text("a"), mockReply.text("b"), mockReply.text("c")],
    });
    const secret = "sk-very-secret-123";
    const client = new ProviderModelClient({ apiKey: secret, apiBase: server.url });
    for (const model of ["openai:gpt-4o", "anthropic:claude", "groq:llama"]) {
      await collect(client.stream({ model, messages: hi }));
    }
    const [openai, anthropic, groq] = server.requests;
    assert.equal(openai!.headers.authorization, `Bearer ${secret}`);
    assert.equal(anthropic!.headers["x-api-key"], secret);
    assert.equal(groq!.headers.authorization, `Bearer ${secret}`);
    for (const request of server.requests) {
      assert.equal(JSON.stringify(request.body).includes(secret), false);
      assert.equal(request.path.includes(secret), false);
    }
  });

  test("api_key {openai: k} gives the openai client k and other providers no key", async () => {
    await using server = await MockLlmServer.start({
      script: [mockReply.text("a"), mockReply.text("b")],
    });
    const client = new ProviderModelClient({ apiKey: { openai: "k-openai" }, apiBase: server.url });
    await collect(client.stream({ model: "openai:gpt-4o", messages: hi }));
    await collect(client.stream({ model: "ollama:llama3.2:1b", messages: hi }));
    assert.equal(server.requests[0]!.headers.authorization, "Bearer k-openai");
    assert.equal(server.requests[1]!.headers.authorization, undefined);
  });

  test("client_args headers reach the HTTP request", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("a")] });
    const client = new ProviderModelClient({
      apiBase: server.url,
      clientArgs: { extra_headers: { "HTTP-Referer": "https://bub.build", "X-Title": "Bub" } },
    });
    await collect(client.stream({ model: "openrouter:openrouter/free", messages: hi }));
    assert.equal(server.requests[0]!.headers["http-referer"], "https://bub.build");
    assert.equal(server.requests[0]!.headers["x-title"], "Bub");
  });
});

describe("message conversion", () => {
  const conversation: ModelRequest["messages"] = [
    { role: "system", content: "Be brief." },
    {
      role: "user",
      content: [
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "bash", arguments: '{"cmd":"ls"}' },
      }],
    },
    { role: "tool", tool_call_id: "call_1", content: "README.md" },
  ];

  test("chat-format history with tool calls, tool results and images reaches an OpenAI-compatible body", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
    const client = new ProviderModelClient({ apiBase: server.url });
    await collect(client.stream({ model: "custom:m", messages: conversation }));
    const messages = body(server).messages as Array<Record<string, unknown>>;
    assert.deepEqual(messages.map((m) => m.role), ["system", "user", "assistant", "tool"]);
    assert.deepEqual(messages[0], { role: "system", content: "Be brief." });
    const parts = messages[1]!.content as Array<Record<string, unknown>>;
    assert.deepEqual(parts[0], { type: "text", text: "what is this?" });
    assert.deepEqual(parts[1], {
      type: "image_url",
      image_url: { url: "data:image/png;base64,iVBORw0KGgo=" },
    });
    assert.deepEqual(messages[2]!.tool_calls, [
      { id: "call_1", type: "function", function: { name: "bash", arguments: '{"cmd":"ls"}' } },
    ]);
    assert.deepEqual(messages[3], { role: "tool", tool_call_id: "call_1", content: "README.md" });
  });

  test("the same history becomes Anthropic tool_use and tool_result blocks", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
    const client = new ProviderModelClient({ apiKey: "k", apiBase: server.url });
    await collect(client.stream({ model: "anthropic:claude", messages: conversation }));
    const sent = body(server);
    assert.deepEqual(sent.system, [{ type: "text", text: "Be brief." }]);
    const messages = sent.messages as Array<
      { role: string; content: Array<Record<string, unknown>> }
    >;
    assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "user"]);
    assert.deepEqual(messages[1]!.content[0], {
      type: "tool_use",
      id: "call_1",
      name: "bash",
      input: { cmd: "ls" },
    });
    assert.equal(messages[2]!.content[0]!.type, "tool_result");
    assert.equal(messages[2]!.content[0]!.tool_use_id, "call_1");
  });

  test("tools are sent as function schemas", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("ok")] });
    const client = new ProviderModelClient({ apiBase: server.url });
    const parameters = {
      type: "object",
      properties: { cmd: { type: "string" } },
      required: ["cmd"],
    };
    await collect(client.stream({
      model: "ollama:m",
      messages: hi,
      tools: [{ type: "function", function: { name: "bash", description: "Run.", parameters } }],
    }));
    const tools = body(server).tools as Array<{ type: string; function: Record<string, unknown> }>;
    assert.equal(tools[0]!.type, "function");
    assert.equal(tools[0]!.function.name, "bash");
    assert.equal(tools[0]!.function.description, "Run.");
    assert.deepEqual(
      (tools[0]!.function.parameters as { properties: unknown }).properties,
      parameters.properties,
    );
  });
});

describe("reasoning", () => {
  for (const model of ["deepseek:deepseek-reasoner", "anthropic:claude"]) {
    test(`${model} streams reasoning deltas before the text`, async () => {
      await using server = await MockLlmServer.start({
        script: [{ reasoning: ["think ", "hard"], text: "answer" }],
      });
      const client = new ProviderModelClient({ apiKey: "k", apiBase: server.url });
      const events = await collect(client.stream({ model, messages: hi }));
      assert.deepEqual(
        events.filter((e) => e.type === "reasoning" || e.type === "text"),
        [
          { type: "reasoning", delta: "think " },
          { type: "reasoning", delta: "hard" },
          { type: "text", delta: "answer" },
        ],
      );
    });
  }
});

describe("provider failures", () => {
  test("a context-length 400 throws before start with the provider message kept", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.contextLengthError()] });
    const client = new ProviderModelClient({ apiBase: server.url });
    const seen: ModelEvent[] = [];
    const error = await (async () => {
      for await (const event of client.stream({ model: "ollama:m", messages: hi })) {
        seen.push(event);
      }
    })().catch((e) => e);
    assert.ok(BubError.isInstance(error));
    assert.equal(error.kind, "provider");
    assert.equal(error.details?.status_code, 400);
    assert.match(String(error), CONTEXT_LENGTH);
    assert.deepEqual(seen, []);
  });

  for (const status of [429, 500]) {
    test(`an HTTP ${status} throws a temporary BubError naming the status`, async () => {
      await using server = await MockLlmServer.start({ script: [mockReply.error(status, "busy")] });
      const client = new ProviderModelClient({ apiKey: "k", apiBase: server.url });
      const error = await collect(client.stream({ model: "anthropic:c", messages: hi })).catch((
        e,
      ) => e);
      assert.ok(BubError.isInstance(error));
      assert.equal(error.kind, "temporary");
      assert.equal(error.details?.status_code, status);
      assert.match(error.message, /busy/);
      assert.doesNotMatch(String(error), CONTEXT_LENGTH);
    });
  }

  test("a truncated SSE stream throws after start, keeping the deltas already received", async () => {
    await using server = await MockLlmServer.start({
      script: [mockReply.truncated({ text: ["one ", "two ", "three"], delayMs: 20 }, 3)],
    });
    const client = new ProviderModelClient({ apiBase: server.url });
    const events: ModelEvent[] = [];
    const error = await (async () => {
      for await (const event of client.stream({ model: "ollama:m", messages: hi })) {
        events.push(event);
      }
    })().catch((e) => e);
    assert.ok(BubError.isInstance(error), String(error));
    assert.match(error.message, /Model stream from ollama:m failed/);
    assert.equal(events[0]!.type, "start");
    const texts = events.filter((e) => e.type === "text").map((e) =>
      (e as { delta: string }).delta
    );
    assert.equal(texts[0], "one ");
    assert.equal(texts.includes("three"), false);
    assert.equal(events.some((e) => e.type === "finish"), false);
  });

  test("malformed tool-call JSON is passed through as the raw arguments string", async () => {
    await using server = await MockLlmServer.start({
      script: [mockReply.toolCall("bash", '{"cmd": "ls"')],
    });
    const client = new ProviderModelClient({ apiBase: server.url });
    const events = await collect(client.stream({ model: "ollama:m", messages: hi }));
    const call = events.find((e) => e.type === "tool_call");
    assert.deepEqual(call, {
      type: "tool_call",
      index: 0,
      id: "call_1",
      name: "bash",
      arguments: '{"cmd": "ls"',
    });
  });

  test("aborting the signal mid-stream throws its reason and the server keeps serving", async () => {
    await using server = await MockLlmServer.start({
      script: [{ text: ["a", "b", "c", "d"], delayMs: 200 }, mockReply.text("after")],
    });
    const client = new ProviderModelClient({ apiBase: server.url });
    const controller = new AbortController();
    const error = await (async () => {
      for await (
        const event of client.stream({ model: "ollama:m", messages: hi }, {
          signal: controller.signal,
        })
      ) {
        if (event.type === "text") controller.abort();
      }
    })().catch((e) => e);
    assert.equal(error?.name, "AbortError");
    const events = await collect(client.stream({ model: "ollama:m", messages: hi }));
    assert.deepEqual(events.filter((e) => e.type === "text"), [{ type: "text", delta: "after" }]);
  });
});

describe("one provider model per model id", () => {
  for (const model of ["openrouter:openrouter/free", "openai:gpt-4o", "anthropic:claude-x"]) {
    test(`concurrent calls to ${model} on one client each send their own body fields and see their own activity`, async () => {
      await using server = await MockLlmServer.start({
        script: () => ({ text: ["one ", "two ", "three"], delayMs: 30 }),
      });
      const client = new ProviderModelClient({ apiBase: server.url, apiKey: "sk-test" });
      const activity = { a: 0, b: 0 };
      const call = (name: "a" | "b", temperature: number) =>
        collect(client.stream(
          { model, messages: [{ role: "user", content: name }], completionArgs: { temperature } },
          { onActivity: () => activity[name]++ },
        ));
      const [a, b] = await Promise.all([call("a", 0.1), call("b", 0.9)]);
      for (const events of [a, b]) {
        const text = events.flatMap((e) => e.type === "text" ? [e.delta] : []).join("");
        assert.equal(text, "one two three");
      }
      assert.equal(server.requests.length, 2);
      for (const request of server.requests) {
        const sent = request.body as Record<string, unknown>;
        const asked = JSON.stringify(sent.messages ?? sent.input).includes('"a"') ? 0.1 : 0.9;
        assert.equal(sent.temperature, asked, JSON.stringify(sent));
      }
      assert.ok(activity.a > 0 && activity.b > 0, JSON.stringify(activity));
      // A third call after both finished still works on the reused model.
      const again = await collect(client.stream({ model, messages: hi }));
      assert.ok(again.some((e) => e.type === "text"));
    });
  }
});
