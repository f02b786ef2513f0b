/**
 * The model answer limit (issue 27 item 7, `max_answer_bytes`): a provider that keeps streaming
 * text, tool-call arguments or one line that never ends is stopped once the answer passes the
 * limit, on every protocol the client speaks (chat completions, Responses, Anthropic). The turn
 * fails with a `provider` BubError naming the limit and the setting, the server sees the client
 * go away long before its answer is over, and the next turn is answered.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { ModelRunner } from "../../src/agent/model_runner.ts";
import {
  MODEL_CLIENT_SPECIFICATION_VERSION,
  type ModelClient,
  type ModelEvent,
} from "../../src/agent/model_client.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { readBody, startLoopbackServer } from "../../src/testing/_http.ts";
import type { MockProtocol, MockReply } from "../../src/testing/_mock_reply.ts";
import { sseEvents } from "../../src/testing/_mock_wire.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { eventData, turnFixture } from "./_turn_fixture.ts";

/** What the flooding server wrote for one request, and whether the client left early. */
interface Flood {
  bytes: number;
  total: number;
  clientLeft: boolean;
  done: Promise<void>;
}

const PIECE = "x".repeat(16 * 1024);
/** The flood: 24 MiB of answer, far past the 64 KiB limit of the tests. */
const FLOOD_PIECES = 24 * 64;
const LIMIT = 64 * 1024;

type Shape = "text" | "tool arguments" | "one endless line" | "one endless event";

function floodReply(shape: Shape): MockReply {
  const pieces = Array.from({ length: FLOOD_PIECES }, () => PIECE);
  if (shape === "text") return { text: pieces };
  if (shape === "one endless line") return { text: [pieces.join("")] };
  return {
    toolCalls: [{ id: "call_big", name: "tests_echo", arguments: ['{"text":"', ...pieces, '"}'] }],
  };
}

function protocolOf(path: string): MockProtocol {
  if (path.endsWith("/responses")) return "responses";
  if (path.endsWith("/messages")) return "anthropic";
  return "chat";
}

/**
 * A model server whose first answer is a flood written event by event (with backpressure) until
 * the client disconnects or all of it is out; later requests get a short text answer.
 */
async function floodServer(shape: Shape) {
  const floods: Flood[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.parse((await readBody(req)).toString("utf8")) as Record<string, unknown>;
    const first = floods.length === 0;
    const protocol = protocolOf(req.url ?? "");
    const events = !first
      ? sseEvents(protocol, { text: "back again" }, body)
      : shape === "one endless event"
      // The answer's first event, then `data:` lines of one event that never ends.
      ? [
        sseEvents(protocol, { text: "a" }, body)[0]!,
        ...Array.from({ length: FLOOD_PIECES }, () => `data: ${PIECE}\n`),
      ]
      : sseEvents(protocol, floodReply(shape), body);
    let finish!: () => void;
    const flood: Flood = {
      bytes: 0,
      total: events.reduce((sum, event) => sum + Buffer.byteLength(event), 0),
      clientLeft: false,
      done: new Promise<void>((resolve) => (finish = resolve)),
    };
    if (first) floods.push(flood);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.on("close", () => {
      flood.clientLeft = !res.writableFinished;
      finish();
    });
    for (const event of events) {
      // Long events go out in 64 KiB writes, so a client leaving mid-line is seen too.
      for (let at = 0; at < event.length; at += 65_536) {
        if (res.destroyed) return;
        const slice = event.slice(at, at + 65_536);
        flood.bytes += Buffer.byteLength(slice);
        if (!res.write(slice)) {
          await new Promise<void>((resolve) => {
            res.once("drain", resolve);
            res.once("close", resolve);
          });
        }
      }
    }
    res.end();
  };
  const http = await startLoopbackServer(handle, (res) => res.destroy());
  return {
    url: `http://127.0.0.1:${http.port}/v1`,
    floods,
    close: () => http.close(),
  };
}

function echoTool() {
  return defineTool({
    name: "tests.echo",
    description: "Echo the text",
    parameters: z.object({ text: z.string() }),
    handler: ({ text }) => `echo:${text.length}`,
  });
}

describe("model answer limit over HTTP", () => {
  const protocols = [
    ["chat completions", "openai:gpt-test"],
    ["Responses", "openai-responses:gpt-test"],
    ["Anthropic", "anthropic:claude-test"],
  ] as const;
  const shapes: Shape[] = ["text", "tool arguments", "one endless line", "one endless event"];
  for (const [protocol, model] of protocols) {
    for (const shape of shapes) {
      test(`${protocol}: a flood of ${shape} stops at max_answer_bytes with a provider error naming the limit, the server sees the disconnect, and the next turn is answered`, async () => {
        const server = await floodServer(shape);
        try {
          await using fx = await turnFixture({
            tools: [echoTool()],
            env: {
              BUB_MODEL: model,
              BUB_API_BASE: server.url,
              BUB_MAX_ANSWER_BYTES: String(LIMIT),
            },
          });
          const error = await fx.turn("go").then(() => null, (e: unknown) => e);
          assert.ok(BubError.isInstance(error), `expected a BubError, got ${error}`);
          assert.equal(error.kind, "provider");
          assert.equal(
            error.message,
            "Model answer exceeded 64 KiB (max_answer_bytes, BUB_MAX_ANSWER_BYTES); " +
              "the stream was stopped",
          );
          const [flood] = server.floods;
          await flood!.done;
          assert.equal(flood!.clientLeft, true, "the client closed the connection");
          assert.ok(
            flood!.bytes < flood!.total / 2,
            `the server wrote ${flood!.bytes} of ${flood!.total} bytes before the client left`,
          );
          const step = eventData(await fx.entries(), "loop.step").at(-1)!;
          assert.equal(step.status, "error");
          assert.match(String(step.error), /Model answer exceeded 64 KiB/);
          assert.equal((await fx.turn("again")).modelOutput, "back again");
        } finally {
          await server.close();
        }
      });
    }
  }
});

describe("model answer limit in the runner", () => {
  test("a client that ignores the limit is stopped by the runner: the call fails and the client's stream is closed", async () => {
    let closed = false;
    let sent = 0;
    const endless: ModelClient = {
      specificationVersion: MODEL_CLIENT_SPECIFICATION_VERSION,
      async *stream(): AsyncGenerator<ModelEvent> {
        try {
          yield { type: "start", provider: "endless", model: "m" };
          for (;;) {
            sent += PIECE.length;
            yield { type: "text", delta: PIECE };
            await Promise.resolve();
          }
        } finally {
          closed = true;
        }
      },
    };
    const runner = new ModelRunner(endless, null, {
      model: "endless:m",
      maxAnswerBytes: LIMIT,
    });
    const tape = new Tape({ store: new InMemoryTapeStore() }).sessionTape("cli:local", "/tmp/ws");
    await tape.ensureBootstrapAnchor();
    const run = async () => {
      for await (
        const _event of runner.run({
          tape,
          model: "endless:m",
          tools: [],
          systemPrompt: "",
          prompt: "go",
          state: {},
        })
      ) { /* consume */ }
    };
    await assert.rejects(run(), (error: unknown) => {
      assert.ok(BubError.isInstance(error));
      assert.match(error.message, /^Model answer exceeded 64 KiB \(max_answer_bytes/);
      assert.deepEqual(error.details, { max_answer_bytes: LIMIT });
      return true;
    });
    assert.equal(closed, true, "the client's stream was closed");
    assert.ok(sent <= LIMIT + PIECE.length, `the client sent ${sent} bytes`);
  });

  test("a limit below 1024 bytes given to the runner directly is a config error", () => {
    const client: ModelClient = {
      specificationVersion: MODEL_CLIENT_SPECIFICATION_VERSION,
      stream: () => (async function* () {})(),
    };
    for (const maxAnswerBytes of [100, 2.5, Number.NaN]) {
      assert.throws(
        () => new ModelRunner(client, null, { model: "x:y", maxAnswerBytes }),
        (error: unknown) =>
          BubError.isInstance(error) && error.kind === "config" &&
          /maxAnswerBytes must be an integer of at least 1024/.test(error.message),
      );
    }
  });
});
