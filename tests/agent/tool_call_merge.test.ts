/**
 * Streamed OpenAI chat-completions tool-call deltas merge as builtin spec §4.5 says (§16 item 38):
 * by index, a missing id becomes `call_<index>`, name pieces concatenate, arguments append.
 * Driven through the real AI SDK providers with a golden SSE fixture, then end to end through
 * `processInbound` against a real HTTP server.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { ModelEvent } from "../../src/agent/model_client.ts";
import {
  type FetchLike,
  ProviderModelClient,
} from "../../src/agent/providers/provider_model_client.ts";
import { withToolCallMerge } from "../../src/agent/providers/_sse_tool_calls.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { readBody, startLoopbackServer } from "../../src/testing/_http.ts";
import { mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { z } from "zod";
import { turnFixture } from "./_turn_fixture.ts";

const FIXTURE = "openai_chat_tool_name_pieces.sse";
const fixtureText = (): Promise<string> =>
  readFile(new URL(`../fixtures/sse/${FIXTURE}`, import.meta.url), "utf8");

/** A `fetch` answering with `body` split into `pieceSize`-byte chunks (0: one chunk). */
function sseFetch(body: string, pieceSize = 0): FetchLike {
  return () => {
    const bytes = new TextEncoder().encode(body);
    const size = pieceSize || bytes.length;
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at += size));
      },
    });
    return Promise.resolve(
      new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } }),
    );
  };
}

async function collect(iterable: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const request = {
  messages: [{ role: "user" as const, content: "read my notes" }],
  tools: [{
    type: "function" as const,
    function: {
      name: "fs_read",
      description: "Read a file.",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    },
  }],
};

function expectedEvents(provider: string, model: string): ModelEvent[] {
  return [
    { type: "start", provider, model },
    { type: "text", delta: "Reading " },
    { type: "text", delta: "three files ✓" },
    {
      type: "tool_call",
      index: 0,
      id: "call_0",
      name: "fs_read",
      arguments: '{"path":"note.txt"}',
    },
    {
      type: "tool_call",
      index: 1,
      id: "call_1",
      name: "fs_read",
      arguments: '{"path":"other.txt"}',
    },
    {
      type: "tool_call",
      index: 2,
      id: "call_keep7",
      name: "fs_read",
      arguments: '{"path":"third.txt"}',
    },
    {
      type: "usage",
      usage: {
        prompt_tokens: 120,
        completion_tokens: 42,
        total_tokens: 162,
        prompt_tokens_details: { cached_tokens: 96 },
      },
    },
    { type: "finish", reason: "tool-calls", rawReason: "tool_calls" },
  ];
}

/** The `data:` payloads of an SSE text, in order. */
function dataEvents(text: string): string[] {
  return text.split("\n\n").filter((event) => event !== "").map((event) => event.slice(6));
}

describe("streamed chat tool-call deltas merge by index", () => {
  for (
    const [label, model] of [
      ["an OpenAI-compatible", "deepseek:deepseek-chat"],
      ["the OpenAI chat", "openai:gpt-4o"],
    ] as const
  ) {
    test(`${label} stream: a missing id becomes call_<index>, name pieces fs + _read arrive as fs_read, arguments concatenate, a present id is kept, text and usage unchanged`, async () => {
      const client = new ProviderModelClient({
        apiKey: "sk-test",
        fetch: sseFetch(await fixtureText()),
      });
      const [provider, name] = model.split(":") as [string, string];
      assert.deepEqual(
        await collect(client.stream({ ...request, model })),
        expectedEvents(provider, name),
      );
    });
  }

  test("the merge does not depend on how the bytes are split (CRLF line ends, 7-byte pieces through a multibyte character)", async () => {
    const crlf = (await fixtureText()).replaceAll("\n", "\r\n");
    const client = new ProviderModelClient({ apiKey: "sk-test", fetch: sseFetch(crlf, 7) });
    assert.deepEqual(
      await collect(client.stream({ ...request, model: "deepseek:deepseek-chat" })),
      expectedEvents("deepseek", "deepseek-chat"),
    );
  });

  test("a name completed only by finish_reason is still merged, and later id/name repeats are dropped for the SDK", async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const body = chunk({ tool_calls: [{ index: 0, function: { name: "tests" } }] }) +
      chunk({ tool_calls: [{ index: 0, function: { name: "_ping" } }] }) +
      chunk({}, "tool_calls") + "data: [DONE]\n\n";
    const client = new ProviderModelClient({ apiKey: "sk-test", fetch: sseFetch(body) });
    const events = await collect(client.stream({ ...request, model: "openai:gpt-4o" }));
    assert.deepEqual(events.filter((event) => event.type === "tool_call"), [
      { type: "tool_call", index: 0, id: "call_0", name: "tests_ping", arguments: "" },
    ]);
  });

  test("arguments that arrive before the name are kept and the id sent with the name wins", async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const call = (fields: Record<string, unknown>) =>
      chunk({ tool_calls: [{ index: 0, ...fields }] });
    const body = call({ function: { arguments: '{"path":' } }) +
      call({ id: "call_z", function: { name: "fs_read" } }) +
      call({ function: { arguments: '"a.txt"}' } }) + chunk({}, "tool_calls") + "data: [DONE]\n\n";
    const client = new ProviderModelClient({ apiKey: "sk-test", fetch: sseFetch(body) });
    const events = await collect(client.stream({ ...request, model: "deepseek:deepseek-chat" }));
    assert.deepEqual(events.filter((event) => event.type === "tool_call"), [
      { type: "tool_call", index: 0, id: "call_z", name: "fs_read", arguments: '{"path":"a.txt"}' },
    ]);
  });

  test("events without tool-call deltas pass through byte for byte and [DONE] stays last", async () => {
    const text = await fixtureText();
    const response = await withToolCallMerge(sseFetch(text, 11))(
      "https://api.example/v1/chat/completions",
      { method: "POST", body: "{}" },
    );
    const output = dataEvents(await response.text());
    const untouched = dataEvents(text).filter((data) => !data.includes("tool_calls"));
    assert.deepEqual(output.filter((data) => untouched.includes(data)), untouched);
    // The rest are the tool-call events: merged deltas, or emptied while a name was held back.
    for (const data of output.filter((data) => !untouched.includes(data))) {
      const delta = JSON.parse(data).choices[0].delta;
      assert.ok(delta.tool_calls || Object.keys(delta).length === 0, data);
    }
    assert.equal(output.at(-1), "[DONE]");
    const merged = output.filter((data) => data.includes("tool_calls"))
      .flatMap((data) => JSON.parse(data).choices[0].delta.tool_calls);
    assert.deepEqual(merged[0], {
      index: 0,
      id: "call_0",
      type: "function",
      function: { name: "fs_read", arguments: '{"path":' },
    });
  });

  test("a non-streamed completion gets call_<index> for tool calls without an id", async () => {
    const completion = {
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          tool_calls: [
            { type: "function", function: { name: "fs_read", arguments: "{}" } },
            { id: "call_x", type: "function", function: { name: "bash", arguments: "{}" } },
          ],
        },
      }],
    };
    const fetchJson: FetchLike = () =>
      Promise.resolve(
        Response.json(completion, { headers: { "content-type": "application/json" } }),
      );
    const response = await withToolCallMerge(fetchJson)("https://x.test/v1/chat/completions");
    const calls = (await response.json()).choices[0].message.tool_calls;
    assert.deepEqual(calls.map((call: { id: string }) => call.id), ["call_0", "call_x"]);
  });

  test("an HTTP error response passes through unchanged", async () => {
    const error = new Response('{"error":{"message":"bad"}}', { status: 400 });
    const response = await withToolCallMerge(() => Promise.resolve(error))(
      "https://x.test/v1/chat/completions",
    );
    assert.equal(response, error);
  });

  /** A `fetch` sending the fixture's first events, then holding the body open until aborted. */
  function openEndedFetch(text: string, onCancel: () => void = () => {}): FetchLike {
    const head = text.split("\n\n").slice(0, 3).join("\n\n") + "\n\n";
    return (_input, init) =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(head));
              // As a real fetch does: aborting the request errors its body.
              init?.signal?.addEventListener("abort", () => controller.error(init.signal!.reason));
            },
            cancel() {
              onCancel();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
      );
  }

  test("aborting mid-stream rejects with the abort reason", async () => {
    const client = new ProviderModelClient({
      apiKey: "sk-test",
      fetch: openEndedFetch(await fixtureText()),
    });
    const controller = new AbortController();
    const seen: ModelEvent[] = [];
    const reason = new Error("user stop");
    await assert.rejects(async () => {
      const stream = client.stream({ ...request, model: "openai:gpt-4o" }, {
        signal: controller.signal,
      });
      for await (const event of stream) {
        seen.push(event);
        if (event.type === "text") controller.abort(reason);
      }
    }, (error) => error === reason);
    assert.deepEqual(seen.slice(0, 2).map((event) => event.type), ["start", "text"]);
    assert.ok(seen.every((event) => event.type === "start" || event.type === "text"));
  });

  test("leaving the stream early cancels the provider's response body", async () => {
    // The AI SDK's own stream pipes pass a cancel on asynchronously: wait for it (bounded).
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onCancel = (): void => {};
    const cancelled = new Promise<string>((resolve) => {
      onCancel = () => resolve("cancelled");
      timer = setTimeout(() => resolve("still open after 5 s"), 5000);
    });
    const client = new ProviderModelClient({
      apiKey: "sk-test",
      fetch: openEndedFetch(await fixtureText(), () => onCancel()),
    });
    try {
      for await (const event of client.stream({ ...request, model: "deepseek:deepseek-chat" })) {
        if (event.type === "text") break;
      }
      assert.equal(await cancelled, "cancelled");
    } finally {
      clearTimeout(timer);
    }
  });

  test("a body that fails mid-stream still raises a provider stream error", async () => {
    const text = await fixtureText();
    const failing: FetchLike = () =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              controller.enqueue(new TextEncoder().encode(text.split("\n\n")[1] + "\n\n"));
              controller.error(new TypeError("connection reset"));
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
      );
    const client = new ProviderModelClient({ apiKey: "sk-test", fetch: failing });
    await assert.rejects(
      collect(client.stream({ ...request, model: "deepseek:deepseek-chat" })),
      (error) => BubError.isInstance(error) && /connection reset/.test(error.message),
    );
  });
});

describe("end to end through processInbound", () => {
  test("the tape's tool_call entry has id call_0 and the tool result message carries tool_call_id call_0", async () => {
    const fixture = await fixtureText();
    const bodies: Record<string, unknown>[] = [];
    const done = [
      { choices: [{ index: 0, delta: { role: "assistant", content: "All read." } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ].map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") + "data: [DONE]\n\n";
    const server = await startLoopbackServer(
      async (req: IncomingMessage, res: ServerResponse) => {
        bodies.push(JSON.parse(new TextDecoder().decode(await readBody(req))));
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(bodies.length === 1 ? fixture : done);
      },
      (res) => res.destroy(),
    );
    try {
      await using fx = await turnFixture({
        env: { BUB_API_BASE: `http://127.0.0.1:${server.port}/v1` },
      });
      for (const name of ["note", "other", "third"]) {
        await writeFile(join(fx.home, `${name}.txt`), `${name} body`);
      }
      await fx.turn("read my notes");
      const entries = await fx.entries();
      const call = entries.find((entry) => entry.kind === "tool_call")!;
      const calls = (call.payload as { calls: { id: string; function: { name: string } }[] }).calls;
      assert.deepEqual(calls.map((c) => [c.id, c.function.name]), [
        ["call_0", "fs_read"],
        ["call_1", "fs_read"],
        ["call_keep7", "fs_read"],
      ]);
      const result = entries.find((entry) => entry.kind === "tool_result")!;
      assert.deepEqual(result.payload, { results: ["note body", "other body", "third body"] });
      assert.equal(bodies.length, 2);
      const tools = (bodies[1]!.messages as { role: string; tool_call_id?: string }[])
        .filter((message) => message.role === "tool");
      assert.deepEqual(tools.map((message) => message.tool_call_id), [
        "call_0",
        "call_1",
        "call_keep7",
      ]);
    } finally {
      await server.close();
    }
  });
});

describe("long streamed tool-call arguments (direct chat-completions client)", () => {
  function lengthTool() {
    return defineTool({
      name: "tests.measure",
      description: "Measures the text",
      parameters: z.object({ text: z.string() }),
      handler: ({ text }) => `length:${text.length}`,
    });
  }

  test(
    "1 MiB of arguments in 16-byte pieces that each end in } arrive whole: each character is looked at once, not a parse per piece",
    {
      timeout: 60_000,
    },
    async () => {
      const piece = "xxxxxxxxxxxxxxx}";
      const count = (1024 * 1024) / piece.length;
      await using fx = await turnFixture({
        script: [
          mockReply.toolCall("tests_measure", [
            '{"text":"',
            ...Array.from({ length: count }, () => piece),
            '"}',
          ]),
          mockReply.text("done"),
        ],
        tools: [lengthTool()],
      });
      assert.equal((await fx.turn("go")).modelOutput, "done");
      const result = (await fx.entries()).find((entry) => entry.kind === "tool_result")!;
      assert.deepEqual(result.payload, { results: [`length:${count * piece.length}`] });
    },
  );

  test("pieces after the arguments form complete JSON are ignored, as the SDK does", async () => {
    await using fx = await turnFixture({
      script: [
        {
          toolCalls: [{
            name: "tests_measure",
            arguments: ['{"text":', '"abc"}', ' {"text":"more"}'],
          }],
        },
        mockReply.text("done"),
      ],
      tools: [lengthTool()],
    });
    await fx.turn("go");
    const result = (await fx.entries()).find((entry) => entry.kind === "tool_result")!;
    assert.deepEqual(result.payload, { results: ["length:3"] });
  });
});
