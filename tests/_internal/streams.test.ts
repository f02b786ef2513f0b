import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mergeReadableStreams, TextLineStream, toLines } from "../../src/_internal/streams.ts";

function streamOf<T>(chunks: T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const reader = stream.getReader();
  const out: T[] = [];
  while (true) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

function lines(chunks: string[], allowCR = false): Promise<string[]> {
  return readAll(streamOf(chunks).pipeThrough(new TextLineStream({ allowCR })));
}

/** Every way of cutting `text` into two or three chunks. */
function splits(text: string): string[][] {
  const out: string[][] = [[text]];
  for (let i = 0; i <= text.length; i++) {
    for (let j = i; j <= text.length; j++) {
      out.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
    }
  }
  return out;
}

describe("TextLineStream", () => {
  test("splits on \\n and \\r\\n and emits the unterminated tail at the end", async () => {
    assert.deepEqual(await lines(["a\nb\r\nc"]), ["a", "b", "c"]);
  });

  test("keeps empty lines and emits no empty line after a final line ending", async () => {
    assert.deepEqual(await lines(["a\n\n\r\nb\n"]), ["a", "", "", "b"]);
    assert.deepEqual(await lines([""]), []);
  });

  test("does not split on a lone \\r by default", async () => {
    assert.deepEqual(await lines(["a\rb\nc\r"]), ["a\rb", "c\r"]);
  });

  test("with allowCR also splits on a lone \\r and strips a final \\r", async () => {
    assert.deepEqual(await lines(["a\rb\r\nc\r"], true), ["a", "b", "c"]);
    assert.deepEqual(await lines(["a\r\rb"], true), ["a", "", "b"]);
  });

  test("gives the same lines however the text is cut into chunks", async () => {
    const text = "one\r\ntwo\n\nthree\rfour\r\r\nfive";
    for (const allowCR of [false, true]) {
      const expected = await lines([text], allowCR);
      for (const chunks of splits(text)) {
        assert.deepEqual(
          await lines(chunks, allowCR),
          expected,
          `chunks ${JSON.stringify(chunks)}`,
        );
      }
    }
    assert.deepEqual(await lines([text], true), ["one", "two", "", "three", "four", "", "five"]);
  });
});

describe("toLines", () => {
  test("decodes UTF-8 split inside a character and yields its lines", async () => {
    const bytes = new TextEncoder().encode("héllo\r\nwörld\nend");
    const chunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
    const out: string[] = [];
    for await (const line of toLines(streamOf(chunks))) out.push(line);
    assert.deepEqual(out, ["héllo", "wörld", "end"]);
  });

  test("reads the lines of a real HTTP response body", async (t) => {
    const server = createServer((_req, res) => {
      res.write("first\n");
      setTimeout(() => res.end("second\r\nthird"), 10);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    const out: string[] = [];
    for await (const line of toLines(response.body!)) out.push(line);
    assert.deepEqual(out, ["first", "second", "third"]);
  });

  test("cancels the stream when the consumer stops early", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("line\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const line of toLines(stream)) {
      assert.equal(line, "line");
      break;
    }
    assert.equal(cancelled, true);
  });

  test("throws signal.reason when aborted while waiting and cancels the stream", async () => {
    const cancelled = Promise.withResolvers<unknown>();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("a\n"));
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
        for await (const line of toLines(stream, { signal: controller.signal })) {
          seen.push(line);
          controller.abort(reason);
        }
      })(),
      (e) => e === reason,
    );
    assert.deepEqual(seen, ["a"]);
    assert.equal(await cancelled.promise, reason);
  });
});

describe("mergeReadableStreams", () => {
  test("yields the chunks of every source and closes when all close", async () => {
    const merged = mergeReadableStreams(
      streamOf([1, 2, 3]),
      streamOf([10, 20]),
      streamOf<number>([]),
    );
    const out = await readAll(merged);
    assert.deepEqual([...out].sort((a, b) => a - b), [1, 2, 3, 10, 20]);
    assert.deepEqual(out.filter((n) => n < 10), [1, 2, 3], "each source keeps its own order");
  });

  test("closes at once with no sources", async () => {
    assert.deepEqual(await readAll(mergeReadableStreams()), []);
  });

  test("errors with the first source error and cancels the other sources", async () => {
    const boom = new Error("boom");
    const cancelled = Promise.withResolvers<unknown>();
    const idle = new ReadableStream<string>({
      cancel(reason) {
        cancelled.resolve(reason);
      },
    });
    const failing = new ReadableStream<string>({
      start(controller) {
        controller.enqueue("x");
        setTimeout(() => controller.error(boom), 5);
      },
    });
    await assert.rejects(readAll(mergeReadableStreams(idle, failing)), (e) => e === boom);
    assert.equal(await cancelled.promise, boom);
  });

  test("cancelling the merged stream cancels every source", async () => {
    const reasons: unknown[] = [];
    const source = () =>
      new ReadableStream<string>({
        cancel(reason) {
          reasons.push(reason);
        },
      });
    const merged = mergeReadableStreams(source(), source());
    await merged.cancel("enough");
    assert.deepEqual(reasons, ["enough", "enough"]);
  });

  test("reads sources only as fast as the consumer reads (backpressure)", async () => {
    let pulls = 0;
    const endless = new ReadableStream<number>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(pulls);
      },
    }, { highWaterMark: 0 });
    const merged = mergeReadableStreams(endless);
    const reader = merged.getReader();
    for (let i = 1; i <= 3; i++) assert.equal((await reader.read()).value, i);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(pulls <= 6, `source was pulled ${pulls} times for 3 reads`);
    await reader.cancel();
  });
});
