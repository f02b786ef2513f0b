/**
 * `bub run` as a subprocess exports its spans over OTLP/HTTP JSON to a receiver on 127.0.0.1
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, flushing them before it exits; the export settings
 * are read as the OpenTelemetry variables define them.
 */
import { afterEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { existsSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { startCliTracing, tracesProtocol, tracesUrl } from "../../src/cli/tracing.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { MockLlmServer, mockReply } from "../../src/testing/mock_llm_server.ts";
import { readBody, startLoopbackServer } from "../../src/testing/_http.ts";
import { BIN, childEnv, cleanupStack, ROOT, runCli, startChild, tempDirs } from "../cli/_spawn.ts";

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

interface Received {
  path: string;
  type: string;
  body: Buffer;
}

/** An OTLP/HTTP receiver on 127.0.0.1 that keeps every request. */
async function otlpReceiver(): Promise<
  { port: number; requests: Received[]; close(): Promise<void> }
> {
  const requests: Received[] = [];
  const server = await startLoopbackServer(async (req, res) => {
    const body = await readBody(req);
    const type = String(req.headers["content-type"]);
    requests.push({ path: req.url ?? "", type, body });
    res.writeHead(200, { "content-type": type });
    res.end(type.includes("json") ? "{}" : "");
  }, (res) => res.destroy());
  return { port: server.port, requests, close: () => server.close() };
}

function jsonSpans(
  requests: readonly Received[],
): { resource: OtlpAttribute[]; spans: OtlpSpan[] } {
  const resourceSpans = requests.flatMap((request) =>
    (JSON.parse(request.body.toString("utf8")) as OtlpRequest).resourceSpans
  );
  return {
    resource: resourceSpans[0]?.resource.attributes ?? [],
    spans: resourceSpans.flatMap((rs) =>
      rs.scopeSpans.filter((scope) => scope.scope.name === "@bub/core")
        .flatMap((scope) => scope.spans)
    ),
  };
}

const OTEL_ENV = {
  OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_PROTOCOL: undefined,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: undefined,
  OTEL_SERVICE_NAME: undefined,
  OTEL_DENO: undefined,
  OTEL_SDK_DISABLED: undefined,
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: undefined,
};

describe("bub run exports OTLP traces", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("http/json to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, service.name from OTEL_SERVICE_NAME, spans flushed before exit", async () => {
    const dirs = tempDirs();
    const receiver = await otlpReceiver();
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
        ...OTEL_ENV,
        BUB_MODEL: "openai:gpt-test",
        BUB_API_BASE: server.url,
        BUB_API_KEY: "sk-run",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}/`,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "bub-export-test",
      },
      timeoutMs: 30_000,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /The note says hello/);
    const requests = receiver.requests;
    assert.ok(requests.length >= 1, `the receiver got no export${result.stderr}`);
    for (const request of requests) {
      assert.equal(request.path, "/v1/traces");
      assert.match(request.type, /application\/json/);
    }
    const { resource, spans } = jsonSpans(requests);
    assert.equal(valueOf(resource, "service.name"), "bub-export-test");
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

describe("bub run exports OTLP traces (other transports)", () => {
  const cleanup = cleanupStack();
  afterEach(() => cleanup.run());

  test("http/protobuf by default, to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is", async () => {
    const dirs = tempDirs();
    const receiver = await otlpReceiver();
    cleanup.defer(async () => {
      await receiver.close();
      dirs.remove();
    });
    const result = await runCli(dirs, ["run", "--demo", "hello"], {
      env: {
        ...OTEL_ENV,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9/ignored",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${receiver.port}/custom/traces`,
      },
      timeoutMs: 30_000,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(receiver.requests.length >= 1, `the receiver got no export${result.stderr}`);
    for (const request of receiver.requests) {
      assert.equal(request.path, "/custom/traces");
      assert.equal(request.type, "application/x-protobuf");
    }
    // Protobuf keeps strings as UTF-8 bytes: the span names and the default service name show.
    const bytes = Buffer.concat(receiver.requests.map((request) => request.body));
    for (const text of ["invoke_agent bub", "hook runModel", "chat ", "service.name", "bub"]) {
      assert.ok(bytes.includes(text), `${text} in the protobuf export`);
    }
  });

  test("an unreachable collector: the command still succeeds, warns, and waits at most a few seconds", async () => {
    const dirs = tempDirs();
    const closed = await otlpReceiver();
    const port = closed.port;
    await closed.close();
    cleanup.defer(() => dirs.remove());
    const started = performance.now();
    const result = await runCli(dirs, ["run", "--demo", "hello"], {
      env: { ...OTEL_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
      timeoutMs: 30_000,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\[cli:local\]/);
    assert.match(result.stderr, /Trace export/);
    assert.ok(performance.now() - started < 20_000);
  });

  const deno = join(ROOT, ".tools", "bin", "deno");
  test("on Deno, OTEL_DENO=true exports without the SDK (Deno's own exporter)", {
    skip: existsSync(deno) ? false : "no deno binary in .tools/bin",
  }, async () => {
    const dirs = tempDirs();
    const receiver = await otlpReceiver();
    cleanup.defer(async () => {
      await receiver.close();
      dirs.remove();
    });
    await using child = startChild([deno, "run", "-A", BIN, "run", "--demo", "hello"], {
      cwd: dirs.workspace,
      env: childEnv(dirs, {
        ...OTEL_ENV,
        DENO_DIR: process.env.DENO_DIR ?? join(homedir(), ".cache", "deno"),
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      }),
    });
    child.end();
    assert.equal(await child.exited(30_000), 0, child.stderr);
    const traces = receiver.requests.filter((request) => request.path === "/v1/traces");
    const names = jsonSpans(traces).spans.map((span) => span.name);
    for (const name of ["invoke_agent bub", "hook buildPrompt", "hook runModel"]) {
      assert.ok(names.includes(name), `${name} among ${names}`);
    }
    assert.ok(names.some((name) => name.startsWith("chat ")), `a chat span among ${names}`);
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
