/** The mock LLM server over raw HTTP: wire formats, scripting, recording and robustness. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BubError } from "../../src/kernel/errors.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { demoResponder } from "../../src/testing/demo_responder.ts";

// Wire data is checked field by field below.
// deno-lint-ignore no-explicit-any
type Wire = any;

function post(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-x" },
    body: JSON.stringify(body),
    ...init,
  });
}

function sseData(text: string): unknown[] {
  return text.split("\n\n").filter((block) => block.trim() !== "").map((block) => {
    const data = block.split("\n").find((line) => line.startsWith("data: "))!.slice(6);
    return data === "[DONE]" ? data : JSON.parse(data);
  });
}

function sseEventNames(text: string): string[] {
  return text.split("\n\n").filter((b) => b.trim() !== "").map((block) =>
    block.split("\n").find((line) => line.startsWith("event: "))!.slice(7)
  );
}

describe("MockLlmServer", () => {
  test("listens on 127.0.0.1 and records method, path, headers and the parsed body", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("hi")] });
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await post(`${server.url}/chat/completions`, { model: "m", messages: [] });
    await response.body?.cancel();
    assert.deepEqual(server.requests.map((r) => [r.method, r.path, r.protocol]), [[
      "POST",
      "/v1/chat/completions",
      "chat",
    ]]);
    assert.equal(server.requests[0]!.headers.authorization, "Bearer sk-x");
    assert.deepEqual(server.requests[0]!.body, { model: "m", messages: [] });
  });

  test("answers chat-completions as JSON when not streaming, with tool calls and usage", async () => {
    await using server = await MockLlmServer.start({
      script: [{ text: "ok", toolCalls: [{ name: "bash", arguments: { cmd: "ls" } }] }],
    });
    const json = await (await post(`${server.url}/chat/completions`, { model: "m" })).json();
    assert.equal(json.choices[0].message.content, "ok");
    assert.deepEqual(json.choices[0].message.tool_calls, [
      { id: "call_1", type: "function", function: { name: "bash", arguments: '{"cmd":"ls"}' } },
    ]);
    assert.equal(json.choices[0].finish_reason, "tool_calls");
    assert.deepEqual(json.usage, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  test("streams chat-completions SSE: text chunks, tool-call argument deltas, usage chunk only when asked", async () => {
    await using server = await MockLlmServer.start({
      script: [
        { text: ["a", "b"], toolCalls: [{ name: "bash", arguments: ['{"cmd":', '"ls"}'] }] },
        mockReply.text("c"),
      ],
    });
    const body = { model: "m", stream: true, stream_options: { include_usage: true } };
    const response = await post(`${server.url}/chat/completions`, body);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const chunks = sseData(await response.text()) as Array<Record<string, Wire>>;
    assert.equal(chunks.at(-1), "[DONE]");
    const deltas = chunks.slice(0, -1).flatMap((c) => c.choices.map((ch: Wire) => ch.delta));
    assert.deepEqual(deltas.filter((d) => d.content).map((d) => d.content), ["a", "b"]);
    const calls = deltas.filter((d) => d.tool_calls).map((d) => d.tool_calls[0]);
    assert.deepEqual(calls, [
      {
        index: 0,
        id: "call_1",
        type: "function",
        function: { name: "bash", arguments: '{"cmd":' },
      },
      { index: 0, function: { arguments: '"ls"}' } },
    ]);
    assert.deepEqual(chunks.at(-2)!.usage, {
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
    });
    const plain = sseData(
      await (await post(`${server.url}/chat/completions`, { stream: true })).text(),
    );
    assert.equal(plain.some((c) => typeof c === "object" && "usage" in (c as object)), false);
  });

  test("streams Anthropic messages SSE with text_delta, input_json_delta and usage", async () => {
    await using server = await MockLlmServer.start({
      script: [{ text: "hi", toolCalls: [{ name: "bash", arguments: { cmd: "ls" } }] }],
    });
    const text = await (await post(`${server.url}/messages`, { model: "c", stream: true })).text();
    assert.deepEqual(sseEventNames(text), [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const data = sseData(text) as Array<Record<string, Wire>>;
    assert.deepEqual(data[2]!.delta, { type: "text_delta", text: "hi" });
    assert.equal(data[5]!.delta.type, "input_json_delta");
    assert.equal(data[5]!.delta.partial_json + data[6]!.delta.partial_json, '{"cmd":"ls"}');
    assert.deepEqual(data[8]!.usage, { output_tokens: 5 });
    assert.equal(data[8]!.delta.stop_reason, "tool_use");
  });

  test("streams OpenAI Responses SSE with text deltas, function-call argument deltas and completion usage", async () => {
    await using server = await MockLlmServer.start({
      script: [{ text: ["x", "y"], toolCalls: [{ id: "call_9", name: "f", arguments: "{}" }] }],
    });
    const text = await (await post(`${server.url}/responses`, { model: "g", stream: true })).text();
    const events = sseData(text) as Array<Record<string, Wire>>;
    assert.deepEqual(events.map((e) => e.type), [
      "response.created",
      "response.output_item.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    assert.equal(events[5]!.item.call_id, "call_9");
    assert.equal(events.at(-1)!.response.usage.input_tokens, 10);
  });

  test("error replies use each protocol's error body and status", async () => {
    await using server = await MockLlmServer.start({
      script: [
        mockReply.contextLengthError(),
        mockReply.error(429, "slow", { headers: { "retry-after": "1" } }),
      ],
    });
    const first = await post(`${server.url}/chat/completions`, { stream: true });
    assert.equal(first.status, 400);
    const body = await first.json();
    assert.equal(body.error.code, "context_length_exceeded");
    assert.match(body.error.message, /maximum context length/);
    const second = await post(`${server.url}/messages`, { stream: true });
    assert.equal(second.status, 429);
    assert.equal(second.headers.get("retry-after"), "1");
    assert.deepEqual(await second.json(), {
      type: "error",
      error: { type: "rate_limit_error", message: "slow" },
    });
  });

  test("a function script answers every request; a used-up list answers 500", async () => {
    await using fn = await MockLlmServer.start({
      script: (request) => mockReply.text(`seen ${(request.body as { n: number }).n}`),
    });
    for (const n of [1, 2]) {
      const json = await (await post(`${fn.url}/chat/completions`, { n })).json();
      assert.equal(json.choices[0].message.content, `seen ${n}`);
    }
    await using list = await MockLlmServer.start({ script: [mockReply.text("only")] });
    await (await post(`${list.url}/chat/completions`, {})).body?.cancel();
    const exhausted = await post(`${list.url}/chat/completions`, {});
    assert.equal(exhausted.status, 500);
    assert.match((await exhausted.json()).error.message, /no scripted reply left/);
    assert.equal(list.pending, 0);
    list.push(mockReply.text("more"));
    assert.equal(
      (await (await post(`${list.url}/chat/completions`, {})).json()).choices[0].message.content,
      "more",
    );
  });

  test("an unknown path is a 404 and is not recorded", async () => {
    await using server = await MockLlmServer.start({ script: [] });
    const response = await post(`${server.url}/embeddings`, {});
    assert.equal(response.status, 404);
    await response.body?.cancel();
    assert.equal(server.requests.length, 0);
  });

  test("a client aborting mid-stream does not crash the server", async () => {
    await using server = await MockLlmServer.start({
      script: [{ text: ["a", "b", "c"], delayMs: 100 }, mockReply.text("next")],
    });
    const controller = new AbortController();
    const response = await post(`${server.url}/chat/completions`, { stream: true }, {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.read().catch(() => {});
    const json = await (await post(`${server.url}/chat/completions`, {})).json();
    assert.equal(json.choices[0].message.content, "next");
  });

  test("a truncated reply closes the connection mid-stream", async () => {
    await using server = await MockLlmServer.start({
      script: [mockReply.truncated({ text: ["a", "b", "c"] }, 2)],
    });
    const response = await post(`${server.url}/chat/completions`, { stream: true });
    await assert.rejects(response.text());
  });

  test("latencyMs holds every response back before its first byte; a bad value is a BubError", async () => {
    await using server = await MockLlmServer.start({
      script: () => mockReply.text("late"),
      latencyMs: 150,
    });
    for (const stream of [false, true]) {
      const start = performance.now();
      const response = await post(`${server.url}/chat/completions`, { stream });
      assert.ok(performance.now() - start >= 140, "headers came before the latency elapsed");
      assert.match(await response.text(), /late/);
    }
    for (const latencyMs of [-1, Number.NaN, Infinity]) {
      await assert.rejects(MockLlmServer.start({ latencyMs }), (error) => {
        assert.ok(error instanceof BubError);
        assert.equal(error.kind, "invalid_input");
        assert.match(error.message, /latencyMs must be a finite number >= 0/);
        return true;
      });
    }
  });

  test("close is idempotent and stops serving", async () => {
    const server = await MockLlmServer.start({ script: [] });
    const url = server.url;
    await server.close();
    await server.close();
    await assert.rejects(post(`${url}/chat/completions`, {}));
  });

  test("the demo responder echoes the last user message", async () => {
    await using server = await MockLlmServer.start({ script: demoResponder });
    const json = await (await post(`${server.url}/chat/completions`, {
      messages: [{ role: "user", content: "ping" }],
    })).json();
    assert.match(json.choices[0].message.content, /ping/);
  });
});
