/**
 * No exported span string carries a secret: a real builtin framework whose API key is set only
 * in config.yml calls a MockLlmServer that echoes the key (from the Authorization header) in its
 * error body, with the OpenTelemetry SDK recording into an in-memory exporter, content capture
 * off and on (a tool result holding the key too).
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { z } from "zod";
import { mockReply, type MockRequest } from "../../src/testing/mock_llm_server.ts";
import { registerSecrets } from "../../src/_internal/secrets.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { activeTracing } from "../../src/tracing/tracer.ts";
import { turnFixture } from "../agent/_turn_fixture.ts";

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
/** The key, in config.yml only; the `"` makes its JSON-escaped form differ. */
const KEY = 'sk-config-only-SPAN-"leak"-7Q2';

/** A provider rejecting the key and echoing it, as some providers do. */
function echoKey(request: MockRequest) {
  const key = request.headers.authorization?.replace(/^Bearer /, "") ?? "(none)";
  return mockReply.error(401, `Incorrect API key provided: ${key}. Check your key ${key}.`);
}

const leak = defineTool({
  name: "tests.leak",
  description: "Returns the key",
  parameters: z.object({}),
  handler: () => `the key is ${KEY}`,
});

/** Every string a span exporter sees of `span`. */
function exportedStrings(span: ReadableSpan): string[] {
  const out: string[] = [span.name];
  const add = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) value.forEach(add);
    else if (value !== null && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        out.push(key);
        add(item);
      }
    }
  };
  add(span.attributes);
  for (const event of span.events) {
    out.push(event.name);
    add(event.attributes ?? {});
  }
  for (const link of span.links) add(link.attributes ?? {});
  if (span.status.message) out.push(span.status.message);
  return out;
}

/** How many exported strings contain the key (raw or JSON-escaped). */
function copies(spans: readonly ReadableSpan[]): { count: number; where: string[] } {
  const escaped = JSON.stringify(KEY).slice(1, -1);
  const where: string[] = [];
  let count = 0;
  for (const span of spans) {
    for (const text of exportedStrings(span)) {
      const n = text.split(KEY).length - 1 + text.split(escaped).length - 1;
      if (n > 0) where.push(`${span.name}: ${text.slice(0, 120)}`);
      count += n;
    }
  }
  return { count, where };
}

before(() => {
  trace.disable();
  trace.setGlobalTracerProvider(provider);
});
after(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
  delete process.env[CAPTURE];
});
beforeEach(() => {
  exporter.reset();
  delete process.env[CAPTURE];
});

describe("spans export no secret", () => {
  test("content capture off: a provider error echoing the config.yml key leaves no copy in span status or exception events", async () => {
    await using fx = await turnFixture({
      script: echoKey,
      env: { BUB_API_KEY: undefined },
      config: { api_key: KEY },
    });
    await assert.rejects(fx.turn("hi", { stream: false }), /Incorrect API key/);
    assert.ok(fx.server.requests.length > 0, "the model was called");
    assert.equal(
      fx.server.requests[0]!.headers.authorization,
      `Bearer ${KEY}`,
      "the key came from config.yml",
    );
    const spans = exporter.getFinishedSpans();
    const found = copies(spans);
    assert.equal(found.count, 0, `${found.count} copies of the key:\n${found.where.join("\n")}`);
    const chat = spans.find((span) => span.name === "chat gpt-test");
    assert.ok(chat, spans.map((span) => span.name).join(", "));
    assert.equal(chat.status.code, SpanStatusCode.ERROR);
    assert.match(chat.status.message ?? "", /Incorrect API key provided: \[REDACTED\]/);
    const exception = chat.events.find((event) => event.name === "exception");
    assert.match(String(exception?.attributes?.["exception.message"]), /\[REDACTED\]/);
    assert.match(String(exception?.attributes?.["exception.stacktrace"]), /\[REDACTED\]/);
  });

  test("content capture on: tool results and message contents holding the key are redacted too", async () => {
    process.env[CAPTURE] = "true";
    await using fx = await turnFixture({
      script: [mockReply.toolCall("tests_leak", {}), echoKey],
      tools: [leak],
      env: { BUB_API_KEY: undefined },
      config: { api_key: KEY },
    });
    await assert.rejects(fx.turn("show the key", { stream: false }), /Incorrect API key/);
    const spans = exporter.getFinishedSpans();
    const found = copies(spans);
    assert.equal(found.count, 0, `${found.count} copies of the key:\n${found.where.join("\n")}`);
    const tool = spans.find((span) => span.name === "execute_tool tests_leak");
    assert.equal(tool?.attributes["gen_ai.tool.call.result"], "the key is [REDACTED]");
    const chats = spans.filter((span) => span.name === "chat gpt-test");
    assert.equal(chats.length, 2);
    assert.ok(
      chats.some((chat) =>
        String(chat.attributes["gen_ai.input.messages"]).includes("the key is [REDACTED]")
      ),
      "the second call's input (the tool result) is recorded, redacted",
    );
  });

  test("every span method redacts: names, attributes, events, links, status, exceptions", async () => {
    const secret = "tok-direct-span-0042";
    registerSecrets([secret]);
    const tracing = await activeTracing();
    assert.ok(tracing);
    const other = tracing.tracer.startSpan("other");
    other.end();
    tracing.tracer.startActiveSpan(`active ${secret}`, { attributes: { a: secret } }, (span) => {
      span.setAttributes({ list: [`x ${secret}`, "y"], [`key ${secret}`]: 1 });
      span.addEvent(`event ${secret}`, { detail: `d ${secret}` });
      span.addEvent("timed", Date.now());
      span.addLink({ context: other.spanContext(), attributes: { why: secret } });
      span.recordException(`thrown ${secret}`);
      span.recordException({ name: "E", message: `m ${secret}`, stack: `E: m ${secret}\n at x` });
      span.setStatus({ code: SpanStatusCode.ERROR, message: `failed ${secret}` });
      span.updateName(`renamed ${secret}`);
      span.end();
    });
    const span = exporter.getFinishedSpans().find((s) => s.name.startsWith("renamed"));
    assert.ok(span);
    assert.equal(span.name, "renamed [REDACTED]");
    assert.equal(span.status.message, "failed [REDACTED]");
    const text = JSON.stringify(exportedStrings(span));
    assert.ok(!text.includes(secret), text);
    assert.equal(span.events.length, 4);
    assert.equal(span.events[0]!.attributes?.detail, "d [REDACTED]");
    assert.equal(span.events[2]!.attributes?.["exception.message"], "thrown [REDACTED]");
    assert.equal(span.events[3]!.attributes?.["exception.stacktrace"], "E: m [REDACTED]\n at x");
    assert.equal(span.links[0]!.attributes?.why, "[REDACTED]");
  });
});
