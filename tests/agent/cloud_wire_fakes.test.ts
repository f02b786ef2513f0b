/**
 * The mock server's Gemini and Bedrock wires themselves (issue 33 item 2): the event-stream
 * framing's CRC-32, the non-streaming bodies, a stream cut short, and a path no protocol owns.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { crc32, encodeEventStreamMessage } from "../../src/testing/_aws_event_stream.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";

const text = (value: string) => new TextEncoder().encode(value);

describe("AWS event-stream framing", () => {
  test("crc32 gives the standard check value", () => {
    assert.equal(crc32(text("123456789")), 0xcbf43926);
  });

  test("a message has its prelude, string headers, payload and both CRCs", () => {
    const message = encodeEventStreamMessage({ ":event-type": "x" }, text("{}"));
    const view = new DataView(message.buffer);
    assert.equal(view.getUint32(0), message.length);
    assert.equal(view.getUint32(4), 1 + 11 + 1 + 2 + 1);
    assert.equal(view.getUint32(8), crc32(message.subarray(0, 8)));
    assert.equal(
      view.getUint32(message.length - 4),
      crc32(message.subarray(0, message.length - 4)),
    );
    assert.equal(message[12], 11);
    assert.equal(new TextDecoder().decode(message.subarray(13, 24)), ":event-type");
    assert.equal(message[24], 7);
  });
});

describe("non-streaming bodies", () => {
  test("Gemini :generateContent answers one JSON candidate with the function call", async () => {
    await using server = await MockLlmServer.start({
      script: [mockReply.toolCall("lookup", { q: "x" }, { text: "checking" })],
    });
    const response = await fetch(
      `http://127.0.0.1:${server.port}/v1beta/models/gemini-test:generateContent`,
      { method: "POST", body: JSON.stringify({ contents: [] }) },
    );
    const body = await response.json();
    assert.deepEqual(body.candidates[0].content.parts, [
      { text: "checking" },
      { functionCall: { name: "lookup", args: { q: "x" } } },
    ]);
    assert.equal(body.candidates[0].finishReason, "STOP");
    assert.equal(body.usageMetadata.totalTokenCount, 15);
    assert.equal(server.requests[0]!.protocol, "gemini");
  });

  test("Bedrock /converse answers the Converse JSON shape", async () => {
    await using server = await MockLlmServer.start({ script: [mockReply.text("hello")] });
    const response = await fetch(`http://127.0.0.1:${server.port}/model/m/converse`, {
      method: "POST",
      body: JSON.stringify({ messages: [] }),
    });
    const body = await response.json();
    assert.deepEqual(body.output, { message: { role: "assistant", content: [{ text: "hello" }] } });
    assert.equal(body.stopReason, "end_turn");
    assert.equal(server.requests[0]!.protocol, "bedrock");
  });
});

describe("streams cut short", () => {
  for (
    const [model, base] of [
      ["gemini:gemini-test", (origin: string) => `${origin}/v1beta`],
      ["bedrock:amazon.nova-test", (origin: string) => origin],
    ] as const
  ) {
    test(`${model.split(":")[0]}: a stream that stops before its end fails the call, naming the model`, async () => {
      await using server = await MockLlmServer.start({
        script: [mockReply.truncated({ text: ["a", "b", "c"] }, 2)],
      });
      const client = new ProviderModelClient({
        apiKey: "k-123456",
        apiBase: base(`http://127.0.0.1:${server.port}`),
        cloud: { bedrockRegion: "us-east-1" },
      });
      const error = await (async () => {
        for await (
          const _ of client.stream({ model, messages: [{ role: "user", content: "hi" }] })
        ) { /* drain */ }
      })().then(() => null, (e: unknown) => e);
      assert.ok(BubError.isInstance(error), String(error));
      assert.match(error.message, new RegExp(model.replace(".", "\\.")));
      assert.equal(error.kind, "provider");
      assert.match(error.message, /^Model stream from /);
    });
  }
});
