/**
 * Gemini, Vertex AI, Azure OpenAI and Amazon Bedrock (issue 33 item 2) through real turns
 * against the local mock server speaking each one's wire format: streamed text, a tool round
 * trip, the auth each request carried (key header, bearer, a SigV4 signature checked as AWS
 * does), and a provider error that reaches the caller naming the provider, without the key.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { type MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { BubError } from "../../src/kernel/errors.ts";
import type { StreamEvent } from "../../src/kernel/stream.ts";
import { eventData, TEST_API_KEY, turnFixture } from "./_turn_fixture.ts";
import { expectedSigV4, parseSigV4 } from "./_sigv4.ts";

function echoTool() {
  return defineTool({
    name: "tests.echo",
    description: "Echo the text",
    parameters: z.object({ text: z.string() }),
    handler: ({ text }) => `echo:${text}`,
  });
}

const script = () => [
  mockReply.toolCall("tests_echo", { text: "a" }),
  mockReply.text("after the tool", { chunks: 3 }),
];

/** The server's origin (no `/v1`). */
const origin = (server: MockLlmServer) => `http://127.0.0.1:${server.port}`;

/** The text deltas one recorded turn streamed. */
function textDeltas(events: readonly StreamEvent[]): unknown[] {
  return events.filter((e) => e.kind === "text").map((e) => (e.data as { delta?: unknown }).delta);
}

const AWS = {
  accessKeyId: "AKIAMOCKACCESSKEY01",
  secretAccessKey: "mock/Secret+Access/Key-7f3c",
  sessionToken: "mock-session-token-123456",
};

describe("cloud provider turns", () => {
  test("Gemini: text streams in pieces, the tool round trip sends functionCall / functionResponse parts to …/v1beta/models/<m>:streamGenerateContent with x-goog-api-key", async () => {
    await using fx = await turnFixture({
      script: script(),
      tools: [echoTool()],
      env: (server) => ({
        BUB_MODEL: "gemini:gemini-test",
        BUB_API_BASE: `${origin(server)}/v1beta`,
      }),
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "after the tool");
    assert.deepEqual(textDeltas(fx.turns[0]!.events), ["after", " the ", "tool"]);
    assert.deepEqual(fx.server.requests.map((r) => r.path), [
      "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
      "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
    ]);
    for (const request of fx.server.requests) {
      assert.equal(request.headers["x-goog-api-key"], TEST_API_KEY);
      assert.equal(request.headers.authorization, undefined);
    }
    const second = fx.bodies()[1]!;
    assert.ok(second.systemInstruction, "the system prompt goes as systemInstruction");
    const contents = second.contents as Array<{ role: string; parts: unknown[] }>;
    assert.deepEqual(contents.map((c) => c.role), ["user", "model", "user"]);
    assert.deepEqual(
      (contents[1]!.parts as Array<{ functionCall: { name: string; args: unknown } }>)
        .map(({ functionCall: { name, args } }) => ({ name, args })),
      [{ name: "tests_echo", args: { text: "a" } }],
    );
    const response = contents[2]!.parts[0] as {
      functionResponse: { name: string; response: unknown };
    };
    assert.equal(response.functionResponse.name, "tests_echo");
    assert.match(JSON.stringify(response.functionResponse.response), /echo:a/);
    const tools = second.tools as Array<{ functionDeclarations: Array<{ name: string }> }>;
    assert.ok(tools[0]!.functionDeclarations.some((d) => d.name === "tests_echo"));
    const runs = eventData(await fx.entries(), "run");
    assert.deepEqual(runs.map((r) => r.provider), ["gemini", "gemini"]);
    assert.equal((runs[1]!.usage as { total_tokens: number }).total_tokens, 15);
  });

  test("Vertex AI: the tool round trip goes to …/projects/<p>/locations/<l>/publishers/google/models/<m>:streamGenerateContent with the access token as bearer", async () => {
    await using fx = await turnFixture({
      script: script(),
      tools: [echoTool()],
      env: (server) => ({
        BUB_MODEL: "vertex:gemini-test",
        BUB_API_KEY: undefined,
        BUB_VERTEX_ACCESS_TOKEN: "ya29.mock-access-token",
        BUB_API_BASE: `${
          origin(server)
        }/v1beta1/projects/my-project/locations/europe-west4/publishers/google`,
      }),
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "after the tool");
    assert.deepEqual(
      fx.server.requests.map((r) => r.path),
      Array(2).fill(
        "/v1beta1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-test:streamGenerateContent?alt=sse",
      ),
    );
    for (const request of fx.server.requests) {
      assert.equal(request.headers.authorization, "Bearer ya29.mock-access-token");
      assert.equal(request.headers["x-goog-api-key"], undefined);
    }
    const contents = fx.bodies()[1]!.contents as Array<{ role: string; parts: unknown[] }>;
    assert.deepEqual(
      (contents[1]!.parts as Array<{ functionCall: { name: string; args: unknown } }>)
        .map(({ functionCall: { name, args } }) => ({ name, args })),
      [{ name: "tests_echo", args: { text: "a" } }],
    );
  });

  test("Vertex AI express mode: an API key goes as x-goog-api-key", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("hi")],
      env: (server) => ({
        BUB_MODEL: "vertex:gemini-test",
        BUB_API_BASE: `${origin(server)}/v1/publishers/google`,
      }),
    });
    assert.equal((await fx.turn("go")).modelOutput, "hi");
    assert.equal(fx.server.requests[0]!.headers["x-goog-api-key"], TEST_API_KEY);
    assert.equal(
      fx.server.requests[0]!.path,
      "/v1/publishers/google/models/gemini-test:streamGenerateContent?alt=sse",
    );
  });

  test("Azure OpenAI: a dated API version calls …/openai/deployments/<deployment>/chat/completions?api-version= with the api-key header; tool calls go as chat completions", async () => {
    await using fx = await turnFixture({
      script: script(),
      tools: [echoTool()],
      env: (server) => ({
        BUB_MODEL: "azure:my-gpt-deployment",
        BUB_API_BASE: `${origin(server)}/openai`,
        BUB_AZURE_API_VERSION: "2024-10-21",
      }),
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "after the tool");
    assert.deepEqual(textDeltas(fx.turns[0]!.events), ["after", " the ", "tool"]);
    assert.deepEqual(
      fx.server.requests.map((r) => r.path),
      Array(2).fill(
        "/openai/deployments/my-gpt-deployment/chat/completions?api-version=2024-10-21",
      ),
    );
    for (const request of fx.server.requests) {
      assert.equal(request.headers["api-key"], TEST_API_KEY);
      assert.equal(request.headers.authorization, undefined);
    }
    const messages = (fx.bodies()[1]!.messages as Array<Record<string, unknown>>).slice(1);
    const callId = (messages[1]!.tool_calls as Array<{ id: string }>)[0]!.id;
    assert.deepEqual(messages[2], { role: "tool", tool_call_id: callId, content: "echo:a" });
  });

  test("Azure OpenAI Responses: azure-responses calls the v1 route's /responses", async () => {
    await using fx = await turnFixture({
      script: script(),
      tools: [echoTool()],
      env: (server) => ({
        BUB_MODEL: "azure-responses:my-deployment",
        BUB_API_BASE: `${origin(server)}/openai/v1`,
      }),
    });
    assert.equal((await fx.turn("go")).modelOutput, "after the tool");
    assert.deepEqual(fx.server.requests.map((r) => r.path.split("?")[0]), [
      "/openai/v1/responses",
      "/openai/v1/responses",
    ]);
    assert.equal(fx.server.requests[0]!.headers["api-key"], TEST_API_KEY);
  });

  test("Amazon Bedrock: ConverseStream over AWS event-stream framing, the tool round trip as toolUse / toolResult blocks, every request signed with SigV4 (verified) and the session token", async () => {
    await using fx = await turnFixture({
      script: [
        mockReply.toolCall("tests_echo", { text: "a" }, { reasoning: "considering" }),
        mockReply.text("after the tool", { chunks: 3 }),
      ],
      tools: [echoTool()],
      env: (server) => ({
        BUB_MODEL: "bedrock:anthropic.claude-test-v1:0",
        BUB_API_KEY: undefined,
        BUB_API_BASE: origin(server),
        BUB_BEDROCK_REGION: "eu-central-1",
        BUB_BEDROCK_ACCESS_KEY_ID: AWS.accessKeyId,
        BUB_BEDROCK_SECRET_ACCESS_KEY: AWS.secretAccessKey,
        BUB_BEDROCK_SESSION_TOKEN: AWS.sessionToken,
      }),
    });
    const result = await fx.turn("go");
    assert.equal(result.modelOutput, "after the tool");
    assert.deepEqual(textDeltas(fx.turns[0]!.events), ["after", " the ", "tool"]);
    assert.deepEqual(fx.turns[0]!.events[0], { kind: "reasoning", data: { delta: "considering" } });
    assert.deepEqual(
      fx.server.requests.map((r) => r.path),
      Array(2).fill("/model/anthropic.claude-test-v1%3A0/converse-stream"),
    );
    for (const request of fx.server.requests) {
      const auth = parseSigV4(request.headers.authorization);
      assert.ok(auth, `a SigV4 Authorization header: ${request.headers.authorization}`);
      assert.equal(auth.accessKeyId, AWS.accessKeyId);
      assert.equal(auth.region, "eu-central-1");
      assert.equal(auth.service, "bedrock");
      assert.ok(auth.signedHeaders.includes("host") && auth.signedHeaders.includes("x-amz-date"));
      assert.equal(request.headers["x-amz-security-token"], AWS.sessionToken);
      assert.equal(auth.signature, expectedSigV4(request, auth, AWS.secretAccessKey));
      // A signature over another body does not match: the check can fail.
      const tampered = { ...request, rawBody: `${request.rawBody} ` };
      assert.notEqual(auth.signature, expectedSigV4(tampered, auth, AWS.secretAccessKey));
    }
    const second = fx.bodies()[1]!;
    const messages = second.messages as Array<
      { role: string; content: Array<Record<string, unknown>> }
    >;
    assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "user"]);
    const toolUse = messages[1]!.content.find((block) => "toolUse" in block)!.toolUse as {
      toolUseId: string;
      name: string;
      input: unknown;
    };
    assert.deepEqual(toolUse, { toolUseId: "tooluse_1", name: "tests_echo", input: { text: "a" } });
    const toolResult = messages[2]!.content[0]!.toolResult as {
      toolUseId: string;
      content: unknown[];
    };
    assert.equal(toolResult.toolUseId, "tooluse_1");
    assert.deepEqual(toolResult.content, [{ text: "echo:a" }]);
    const runs = eventData(await fx.entries(), "run");
    assert.deepEqual(runs.map((r) => r.provider), ["bedrock", "bedrock"]);
  });

  test("Amazon Bedrock: an API key goes as a bearer token, unsigned", async () => {
    await using fx = await turnFixture({
      script: [mockReply.text("hi")],
      env: (server) => ({ BUB_MODEL: "bedrock:amazon.nova-test", BUB_API_BASE: origin(server) }),
    });
    assert.equal((await fx.turn("go")).modelOutput, "hi");
    const headers = fx.server.requests[0]!.headers;
    assert.equal(headers.authorization, `Bearer ${TEST_API_KEY}`);
    assert.equal(headers["x-amz-date"], undefined);
  });

  const errors: Array<
    { model: string; env: (s: MockLlmServer) => Record<string, string>; body: RegExp }
  > = [
    {
      model: "gemini:gemini-test",
      env: (s) => ({ BUB_API_BASE: `${origin(s)}/v1beta` }),
      body: /"status":"INVALID_ARGUMENT"/,
    },
    {
      model: "vertex:gemini-test",
      env: (s) => ({ BUB_API_BASE: `${origin(s)}/v1/publishers/google` }),
      body: /"status":"INVALID_ARGUMENT"/,
    },
    {
      model: "azure:my-deployment",
      env: (s) => ({ BUB_API_BASE: `${origin(s)}/openai`, BUB_AZURE_API_VERSION: "2024-10-21" }),
      body: /"error":\{"message"/,
    },
    {
      model: "bedrock:amazon.nova-test",
      env: (s) => ({ BUB_API_BASE: origin(s) }),
      body: /^\{"message"/,
    },
  ];
  for (const { model, env, body } of errors) {
    test(`${model.split(":")[0]}: an HTTP 400 with the provider's error body fails the turn with an error naming the provider and its message, not the key`, async () => {
      const message = "Request contains an invalid argument: tools[0] is malformed";
      await using fx = await turnFixture({
        script: [mockReply.error(400, message)],
        env: (server) => ({ BUB_MODEL: model, ...env(server) }),
      });
      const error = await fx.turn("go").then(() => null, (e: unknown) => e);
      assert.ok(BubError.isInstance(error), `a BubError: ${error}`);
      assert.equal(error.kind, "provider");
      assert.match(error.message, new RegExp(`^Model call to ${model} failed with HTTP 400: `));
      assert.ok(error.message.includes(message), error.message);
      assert.equal(error.details?.provider, model.split(":")[0]);
      assert.match(String(error.details?.response_body), body);
      const all = JSON.stringify({ message: error.message, details: error.details });
      assert.equal(all.includes(TEST_API_KEY), false, "the key is not in the error");
      assert.ok(
        JSON.stringify(fx.server.requests[0]!.headers).includes(TEST_API_KEY),
        "it was sent",
      );
    });
  }
});
