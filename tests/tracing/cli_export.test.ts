/**
 * `bub run` as a subprocess exports its spans over OTLP/HTTP JSON to a receiver on 127.0.0.1
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, flushing them before it exits; the export settings
 * are read as the OpenTelemetry variables define them.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startCliTracing, tracesProtocol, tracesUrl } from "../../src/cli/tracing.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { readBody, startLoopbackServer } from "../../src/testing/_http.ts";
import { cleanupStack, runCli, tempDirs } from "../cli/_spawn.ts";

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: OtlpAttribute[];
  status?: { code?: number };
}
interface OtlpRequest {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

function valueOf(attributes: OtlpAttribute[] | undefined, key: string): unknown {
  const found = attributes?.find((attribute) => attribute.key === key)?.value;
  if (!found) return undefined;
  if ("stringValue" in found) return found.stringValue;
  if ("intValue" in found) return Number(found.intValue);
  if ("arrayValue" in found) {
    return ((found.arrayValue as { values?: Record<string, unknown>[] }).values ?? [])
      .map((item) => item.stringValue);
  }
  return found;
}

describe("bub run exports OTLP traces", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("http/json to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, service.name from OTEL_SERVICE_NAME, spans flushed before exit", async () => {
    const dirs = tempDirs();
    const requests: { path: string; type: string; body: OtlpRequest }[] = [];
    const receiver = await startLoopbackServer(async (req, res) => {
      const body = await readBody(req);
      requests.push({
        path: req.url ?? "",
        type: String(req.headers["content-type"]),
        body: JSON.parse(body.toString("utf8")),
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    }, (res) => res.destroy());
    const server = await MockLlmServer.start({
      script: [
        mockReply.toolCall("fs_read", { path: "note.txt" }, { id: "call_read_1" }),
        mockReply.text("The note says hello", { usage: { promptTokens: 30, completionTokens: 6 } }),
      ],
    });
    cleanup.defer(async () => {
      await server.close();
      await receiver.close();
      dirs.remove();
    });
    writeFileSync(join(dirs.workspace, "note.txt"), "hello\n");
    const result = await runCli(dirs, ["run", "read the note"], {
      env: {
        BUB_MODEL: "openai:gpt-test",
        BUB_API_BASE: server.url,
        BUB_API_KEY: "sk-run",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}/`,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "bub-export-test",
        OTEL_DENO: undefined,
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: undefined,
      },
      timeoutMs: 30_000,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /The note says hello/);
    assert.ok(requests.length >= 1, `the receiver got no export${result.stderr}`);
    for (const request of requests) {
      assert.equal(request.path, "/v1/traces");
      assert.match(request.type, /application\/json/);
    }
    const resourceSpans = requests.flatMap((request) => request.body.resourceSpans);
    assert.equal(valueOf(resourceSpans[0]!.resource.attributes, "service.name"), "bub-export-test");
    const spans = resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((scope) => scope.spans));
    const named = (name: string) => spans.filter((span) => span.name === name);

    const [turn] = named("invoke_agent bub");
    assert.ok(turn, `an invoke_agent span among ${spans.map((span) => span.name)}`);
    assert.equal(valueOf(turn.attributes, "gen_ai.conversation.id"), "cli:local");
    const stage = named("hook runModel")[0] ?? named("hook runModelStream")[0];
    assert.ok(stage);
    assert.equal(stage.parentSpanId, turn.spanId);
    const chats = named("chat gpt-test");
    assert.equal(chats.length, 2);
    for (const chat of chats) {
      assert.equal(chat.traceId, turn.traceId);
      assert.equal(chat.parentSpanId, stage.spanId);
      assert.equal(valueOf(chat.attributes, "gen_ai.provider.name"), "openai");
      assert.equal(valueOf(chat.attributes, "gen_ai.request.model"), "gpt-test");
      assert.equal(valueOf(chat.attributes, "gen_ai.conversation.id"), "cli:local");
      assert.equal(valueOf(chat.attributes, "gen_ai.input.messages"), undefined);
    }
    assert.ok(
      chats.some((chat) => valueOf(chat.attributes, "gen_ai.usage.input_tokens") === 30),
    );
    const [tool] = named("execute_tool fs_read");
    assert.ok(tool);
    assert.equal(tool.parentSpanId, stage.spanId);
    assert.equal(valueOf(tool.attributes, "gen_ai.tool.call.id"), "call_read_1");
    assert.equal(valueOf(tool.attributes, "gen_ai.tool.name"), "fs_read");
  });
});

describe("trace export settings", () => {
  test("the traces URL: the TRACES endpoint as is, else the base endpoint + /v1/traces, else none", () => {
    assert.equal(tracesUrl({}), null);
    assert.equal(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }), null);
    assert.equal(
      tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" }),
      "http://127.0.0.1:4318/v1/traces",
    );
    assert.equal(
      tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:9999/custom",
      }),
      "http://127.0.0.1:9999/custom",
    );
  });

  test("the protocol: http/protobuf by default, the TRACES variable first, anything else a config BubError", async () => {
    assert.equal(tracesProtocol({}), "http/protobuf");
    assert.equal(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }), "http/json");
    assert.equal(
      tracesProtocol({
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      }),
      "http/protobuf",
    );
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc",
    };
    await assert.rejects(startCliTracing(env), (error: unknown) => {
      assert.ok(BubError.isInstance(error));
      assert.equal(error.kind, "config");
      assert.match(error.message, /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grpc" is not supported/);
      return true;
    });
  });

  test("no endpoint, or OTEL_SDK_DISABLED=true: no export is set up", async () => {
    assert.equal(await startCliTracing({}), null);
    assert.equal(
      await startCliTracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
        OTEL_SDK_DISABLED: "true",
      }),
      null,
    );
  });
});
