/**
 * The direct chat-completions client against the AI SDK path it replaces, over real HTTP on
 * 127.0.0.1: the same request bytes and headers, the same events for the same streams, the same
 * errors. The SDK path is forced with a `client_args` key the SDK provider ignores in effect
 * (`name: "openai"` / `includeUsage: true` are its own defaults), so both run in one process.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ModelEvent, ModelRequest } from "../../src/agent/model_client.ts";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { type LoopbackServer, readBody, startLoopbackServer } from "../../src/testing/_http.ts";

interface Seen {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A server answering every request with `reply` (status, content type, body). */
async function server(
  reply: () => { status?: number; type?: string; body: string },
): Promise<LoopbackServer & AsyncDisposable & { seen: Seen[]; url: string }> {
  const seen: Seen[] = [];
  const started = await startLoopbackServer(
    async (req: IncomingMessage, res: ServerResponse) => {
      const body = new TextDecoder().decode(await readBody(req));
      seen.push({ path: req.url ?? "", headers: req.headers, body });
      const answer = reply();
      res.writeHead(answer.status ?? 200, {
        "content-type": answer.type ?? "text/event-stream",
      });
      res.end(answer.body);
    },
    (res) => res.destroy(),
  );
  return Object.assign(started, {
    seen,
    url: `http://127.0.0.1:${started.port}/v1`,
    [Symbol.asyncDispose]: () => started.close(),
  });
}

const fixture = (name: string) =>
  readFile(new URL(`../fixtures/sse/${name}`, import.meta.url), "utf8");

async function collect(iterable: AsyncIterable<ModelEvent>): Promise<ModelEvent[] | unknown> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of iterable) events.push(event);
  } catch (error) {
    return { error, events };
  }
  return events;
}

/** The direct client and the SDK-path client for one provider. */
function clients(provider: string, url: string) {
  const common = { apiKey: "sk-test", apiBase: url, clientArgs: { headers: { "X-Title": "Bub" } } };
  const forced = provider === "openai" ? { name: "openai" } : { includeUsage: true };
  return {
    direct: new ProviderModelClient(common),
    sdk: new ProviderModelClient({ ...common, clientArgs: { ...common.clientArgs, ...forced } }),
  };
}

const schema = { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] };
const fullRequest: Omit<ModelRequest, "model"> = {
  messages: [
    { role: "system", content: 'Be brief. ✓ \u2028 "quoted"' },
    { role: "developer", content: [{ type: "text", text: "dev" }] },
    { role: "user", content: "hi" },
    { role: "user", content: [{ type: "text", text: "one part" }] },
    { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
    {
      role: "assistant",
      content: "Let me look.",
      reasoning_content: "thinking",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "bash", arguments: '{"cmd": "ls"}' } },
        { id: "call_2", type: "function", function: { name: "bash", arguments: '{"cmd": "ls"' } },
        { id: "call_3", type: "function", function: { name: "bash", arguments: "" } },
        { id: "call_4", type: "function", function: { name: "bash", arguments: "[1]" } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "README.md" },
    { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "x" }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", function: { name: "t", arguments: "{}" } }],
    },
    { role: "assistant", content: "plain" },
  ],
  tools: [
    { type: "function", function: { name: "bash", description: "Run.", parameters: schema } },
    { type: "function", function: { name: "noop" } },
    // zod records carry `propertyNames`, which the OpenAI provider drops.
    {
      type: "function",
      function: {
        name: "fetch",
        description: "Fetch.",
        parameters: {
          type: "object",
          propertyNames: { type: "string" },
          properties: {
            propertyNames: { type: "string" },
            headers: {
              anyOf: [{
                type: "object",
                propertyNames: { type: "string" },
                additionalProperties: { type: ["string", "number"] },
              }, { type: "null" }],
            },
            parts: { type: "array", items: { type: "object", propertyNames: { type: "string" } } },
          },
          required: ["headers"],
        },
      },
    },
  ],
  maxTokens: 512,
  completionArgs: {
    temperature: 0.2,
    model: "other",
    stream_options: { include_usage: false },
    reasoning_effort: "low",
    top_p: 0.5,
  },
  reasoningEffort: "high",
};

const PROVIDERS = ["openai:gpt-4o", "openrouter:openrouter/free", "deepseek:deepseek-chat"];

describe("request bytes", () => {
  for (const model of PROVIDERS) {
    test(`${model}: the direct client sends the AI SDK's exact body, path and headers`, async () => {
      await using srv = await server(() => ({ body: "data: [DONE]\n\n" }));
      const [provider] = model.split(":") as [string];
      const { direct, sdk } = clients(provider, srv.url);
      const variants: Array<Omit<ModelRequest, "model">> = [
        fullRequest,
        { messages: [{ role: "user", content: "hi" }] },
        { ...fullRequest, tools: [], completionArgs: null, reasoningEffort: null },
      ];
      for (const request of variants) {
        await collect(sdk.stream({ ...request, model }));
        await collect(direct.stream({ ...request, model }));
        const [viaSdk, viaDirect] = srv.seen.splice(0, 2) as [Seen, Seen];
        assert.equal(viaDirect.body, viaSdk.body);
        // The direct client really answered (the SDK names itself in the user agent).
        assert.match(String(viaSdk.headers["user-agent"]), /ai-sdk/);
        assert.doesNotMatch(String(viaDirect.headers["user-agent"]), /ai-sdk/);
        assert.equal(viaDirect.path, viaSdk.path);
        for (const name of ["authorization", "content-type", "x-title"]) {
          assert.equal(viaDirect.headers[name], viaSdk.headers[name], name);
        }
      }
    });
  }
});

describe("same events as the SDK path", () => {
  const chunk = (delta: unknown, finish: string | null = null, extra = {}) =>
    `data: ${
      JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }], ...extra })
    }\n\n`;
  const streams: Record<string, () => Promise<string> | string> = {
    "golden text + tool + usage": () => fixture("openai_chat_text_tool_usage.sse"),
    "golden name pieces": () => fixture("openai_chat_tool_name_pieces.sse"),
    "refusal, length": () => chunk({ refusal: "no" }) + chunk({}, "length") + "data: [DONE]\n\n",
    "no usage, stop, CRLF line ends": () =>
      (chunk({ content: "a" }) + chunk({}, "stop")).replaceAll("\n", "\r\n"),
    "usage without prompt_tokens": () =>
      chunk({ content: "a" }, "stop", { usage: { completion_tokens: 3 } }),
    "no finish reason": () => chunk({ content: "a" }) + "data: [DONE]\n\n",
    "error frame after output": () =>
      chunk({ content: "a" }) + `data: ${JSON.stringify({ error: { message: "overloaded" } })}\n\n`,
  };
  for (const model of PROVIDERS) {
    for (const [name, make] of Object.entries(streams)) {
      test(`${model}: ${name}`, async () => {
        const body = await make();
        await using srv = await server(() => ({ body }));
        const { direct, sdk } = clients(model.split(":")[0]!, srv.url);
        const viaSdk = await collect(sdk.stream({ ...fullRequest, model }));
        const viaDirect = await collect(direct.stream({ ...fullRequest, model }));
        if (Array.isArray(viaSdk)) return assert.deepEqual(viaDirect, viaSdk);
        type Failed = { error: BubError; events: ModelEvent[] };
        const a = viaSdk as Failed;
        const b = viaDirect as Failed;
        assert.ok(BubError.isInstance(b.error), String(b.error));
        assert.equal(b.error.kind, a.error.kind);
        assert.equal(b.error.message, a.error.message);
        assert.deepEqual(b.events, a.events);
      });
    }
  }

  for (const status of [400, 429, 500]) {
    for (const model of PROVIDERS) {
      test(`${model}: HTTP ${status} gives the same error kind, message and details`, async () => {
        const body = JSON.stringify({ error: { message: `maximum context length (${status})` } });
        await using srv = await server(() => ({ status, type: "application/json", body }));
        const { direct, sdk } = clients(model.split(":")[0]!, srv.url);
        const a = await collect(sdk.stream({ ...fullRequest, model })) as { error: BubError };
        const b = await collect(direct.stream({ ...fullRequest, model })) as { error: BubError };
        assert.ok(BubError.isInstance(b.error));
        assert.equal(b.error.kind, a.error.kind);
        assert.equal(b.error.message, a.error.message);
        assert.deepEqual(b.error.details, a.error.details);
      });
    }
  }
});

describe("direct client shape checks", () => {
  for (const bad of ["not json", "[1,2]", '{"choices":"x"}']) {
    test(`a malformed chunk ${JSON.stringify(bad)} is a provider BubError naming the model`, async () => {
      await using srv = await server(() => ({ body: `data: ${bad}\n\n` }));
      const client = new ProviderModelClient({ apiKey: "k", apiBase: srv.url });
      const result = await collect(client.stream({ model: "vllm:m", messages: [] })) as {
        error: BubError;
      };
      assert.ok(BubError.isInstance(result.error), String(result.error));
      assert.equal(result.error.kind, "provider");
      assert.match(result.error.message, /Model stream from vllm:m failed: malformed chunk/);
    });
  }

  test("a refused connection is a provider BubError raised before start", async () => {
    const srv = await server(() => ({ body: "" }));
    await srv.close();
    const client = new ProviderModelClient({ apiBase: srv.url });
    const result = await collect(client.stream({ model: "ollama:m", messages: [] })) as {
      error: BubError;
      events: ModelEvent[];
    };
    assert.ok(BubError.isInstance(result.error), String(result.error));
    assert.equal(result.error.kind, "provider");
    assert.match(result.error.message, /^Model call to ollama:m failed: Cannot connect to API/);
    assert.deepEqual(result.events, []);
  });
});
