import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { formatSse, parseSse, type SseMessage } from "../../src/_internal/sse.ts";

const encoder = new TextEncoder();

function bytesStream(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      }
      controller.close();
    },
  });
}

async function parse(
  source: (string | Uint8Array)[] | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
): Promise<SseMessage[]> {
  const input = Array.isArray(source) ? bytesStream(source) : source;
  const out: SseMessage[] = [];
  for await (const message of parseSse(input)) out.push(message);
  return out;
}

function message(data: string, rest: Partial<SseMessage> = {}): SseMessage {
  return { event: "message", data, id: "", retry: undefined, ...rest };
}

describe("parseSse", () => {
  test("joins multi-line data with \\n and dispatches on a blank line", async () => {
    assert.deepEqual(await parse(["data: a\ndata: b\n\ndata: c\n\n"]), [
      message("a\nb"),
      message("c"),
    ]);
  });

  test('uses the event field as the type, defaulting to "message", and resets it per event', async () => {
    assert.deepEqual(await parse(["event: delta\ndata: x\n\ndata: y\n\n"]), [
      message("x", { event: "delta" }),
      message("y"),
    ]);
  });

  test("ignores comment lines and unknown fields", async () => {
    assert.deepEqual(await parse([": keep-alive\nfoo: bar\ndata: x\n:another\n\n"]), [
      message("x"),
    ]);
  });

  test("accepts CRLF, CR and LF line endings alike", async () => {
    const expected = [message("a\nb", { event: "e" }), message("c")];
    for (const eol of ["\n", "\r\n", "\r"]) {
      const text = ["event: e", "data: a", "data: b", "", "data: c", "", ""].join(eol);
      assert.deepEqual(await parse([text]), expected, `line ending ${JSON.stringify(eol)}`);
    }
  });

  test("gives the same messages however the bytes are cut, including a CRLF split in two", async () => {
    const text = "\uFEFFevent: é\r\ndata: a\r\ndata: ü\r\rid: 1\ndata\r\n\r\n: c\n";
    const bytes = encoder.encode(text);
    const expected = await parse([bytes]);
    assert.deepEqual(expected, [message("a\nü", { event: "é" }), message("", { id: "1" })]);
    for (let i = 0; i <= bytes.length; i++) {
      for (const j of [i, Math.min(i + 1, bytes.length), Math.min(i + 3, bytes.length)]) {
        const chunks = [bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)];
        assert.deepEqual(await parse(chunks), expected, `cut at ${i} and ${j}`);
      }
    }
  });

  test("strips a leading BOM", async () => {
    assert.deepEqual(await parse(["\uFEFFdata: x\n\n"]), [message("x")]);
    assert.deepEqual(await parse([Uint8Array.of(0xef, 0xbb), Uint8Array.of(0xbf), "data: y\n\n"]), [
      message("y"),
    ]);
  });

  test("treats a line without a colon as a field with an empty value", async () => {
    assert.deepEqual(await parse(["data\n\n"]), [message("")]);
    assert.deepEqual(await parse(["event: e\nevent\ndata: x\n\n"]), [message("x")]);
  });

  test("strips one space after the colon, and only one", async () => {
    assert.deepEqual(await parse(["data:none\n\ndata:  two\n\ndata: a: b\n\n"]), [
      message("none"),
      message(" two"),
      message("a: b"),
    ]);
  });

  test("does not dispatch an event without data", async () => {
    assert.deepEqual(await parse(["event: lonely\n\n\n\ndata: x\n\n"]), [message("x")]);
  });

  test("does not dispatch a trailing incomplete event", async () => {
    assert.deepEqual(await parse(["data: a\n\ndata: b\n"]), [message("a")]);
    assert.deepEqual(await parse(["data: a\n\ndata: b"]), [message("a")]);
  });

  test("keeps the last event id across events and ignores an id containing NUL", async () => {
    assert.deepEqual(
      await parse(["id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid\ndata: d\n\n"]),
      [
        message("a", { id: "1" }),
        message("b", { id: "1" }),
        message("c", { id: "1" }),
        message("d"),
      ],
    );
  });

  test("reports the latest all-digit retry value and ignores others", async () => {
    assert.deepEqual(
      await parse(["retry: 3000\n\ndata: a\n\nretry: 12a\ndata: b\n\nretry: 5\ndata: c\n\n"]),
      [
        message("a", { retry: 3000 }),
        message("b", { retry: 3000 }),
        message("c", { retry: 5 }),
      ],
    );
  });

  test("reads an async iterable of byte chunks", async () => {
    async function* chunks() {
      yield encoder.encode("data: one\n");
      yield encoder.encode("\ndata: two\n\n");
    }
    assert.deepEqual(await parse(chunks()), [message("one"), message("two")]);
  });

  test("cancels the stream when the consumer stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(encoder.encode("data: tick\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of parseSse(stream)) {
      assert.equal(event.data, "tick");
      break;
    }
    assert.equal(cancelled, true);
  });

  test("throws signal.reason when aborted while waiting and cancels the stream", async () => {
    const cancelled = Promise.withResolvers<unknown>();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode("data: first\n\n"));
      },
      cancel(reason) {
        cancelled.resolve(reason);
      },
    });
    const controller = new AbortController();
    const reason = new Error("stop");
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of parseSse(stream, { signal: controller.signal })) {
          seen.push(event.data);
          controller.abort(reason);
        }
      })(),
      (e) => e === reason,
    );
    assert.deepEqual(seen, ["first"]);
    assert.equal(await cancelled.promise, reason);
  });

  test("reads events from a real HTTP server as they are written", async (t) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": hello\n\n");
      res.write(formatSse({ event: "delta", data: "Hel", id: "1" }));
      setTimeout(() => {
        res.write(formatSse({ event: "delta", data: "lo\nworld", id: "2" }));
        res.end(formatSse({ event: "done", data: "{}" }));
      }, 10);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    assert.deepEqual(await parse(response.body!), [
      message("Hel", { event: "delta", id: "1" }),
      message("lo\nworld", { event: "delta", id: "2" }),
      message("{}", { event: "done", id: "2" }),
    ]);
  });
});

describe("formatSse", () => {
  test("writes event, id, retry and one data line per line, ending with a blank line", () => {
    assert.equal(
      formatSse({ event: "delta", id: "7", retry: 100, data: "a\nb" }),
      "event: delta\nid: 7\nretry: 100\ndata: a\ndata: b\n\n",
    );
    assert.equal(formatSse({ data: "x" }), "data: x\n\n");
  });

  test("round-trips through parseSse, with CRLF and CR in data read back as \\n", async () => {
    const inputs = [
      { data: "plain" },
      { data: "", event: "empty" },
      { data: " leading space", id: "abc" },
      { data: "a: colon\r\nb\rc\n\nd" },
      { data: ": not a comment" },
    ];
    const parsed = await parse([inputs.map(formatSse).join("")]);
    assert.deepEqual(parsed, [
      message("plain"),
      message("", { event: "empty" }),
      message(" leading space", { id: "abc" }),
      message("a: colon\nb\nc\n\nd", { id: "abc" }),
      message(": not a comment", { id: "abc" }),
    ]);
  });

  test("rejects line breaks in event or id and a bad retry", () => {
    assert.throws(() => formatSse({ event: "a\nb", data: "x" }), TypeError);
    assert.throws(() => formatSse({ id: "1\r", data: "x" }), TypeError);
    assert.throws(() => formatSse({ id: "1\0", data: "x" }), TypeError);
    assert.throws(() => formatSse({ retry: -1, data: "x" }), RangeError);
    assert.throws(() => formatSse({ retry: 1.5, data: "x" }), RangeError);
    assert.throws(
      () => formatSse({ data: 3 as unknown as string }),
      /'data' must be a string, got number/,
    );
  });
});
