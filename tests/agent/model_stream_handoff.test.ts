/**
 * The provider clients hand out the direct client's stream as it is (no generator around it):
 * calling `stream` never throws, a bad request fails on the first `next()`, and the lazy client's
 * first call (which imports the provider client) and later calls give the same events. Real HTTP
 * on 127.0.0.1.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ModelEvent } from "../../src/agent/model_client.ts";
import { ProviderModelClient } from "../../src/agent/providers/provider_model_client.ts";
import { LazyProviderModelClient } from "../../src/builtin/lazy_model_client.ts";
import { BubError } from "../../src/kernel/errors.ts";
import { readBody, startLoopbackServer } from "../../src/testing/_http.ts";

const SSE = [
  'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"he"}}]}',
  'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"llo"}}]}',
  'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
  "data: [DONE]",
].map((line) => `${line}\n\n`).join("");

async function sseServer() {
  let requests = 0;
  const started = await startLoopbackServer(
    async (req: IncomingMessage, res: ServerResponse) => {
      await readBody(req);
      requests++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(SSE);
    },
    (res) => res.destroy(),
  );
  return Object.assign(started, {
    url: `http://127.0.0.1:${started.port}/v1`,
    requests: () => requests,
    [Symbol.asyncDispose]: () => started.close(),
  });
}

async function events(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

test("a bad model id: stream() returns a stream and its first next() rejects", async () => {
  const client = new ProviderModelClient({ apiKey: "k" });
  for (const model of ["no-colon", "nosuchprovider:m"]) {
    let stream: AsyncIterator<ModelEvent> | undefined;
    assert.doesNotThrow(() => {
      stream = client.stream({ model, messages: [] })[Symbol.asyncIterator]();
    });
    await assert.rejects(stream!.next(), (error) => BubError.isInstance(error));
  }
});

test("the lazy client's first and later calls stream the same events over the direct client", async () => {
  await using srv = await sseServer();
  const lazy = new LazyProviderModelClient({ apiKey: "k", apiBase: srv.url });
  const direct = new ProviderModelClient({ apiKey: "k", apiBase: srv.url });
  const request = { model: "vllm:m", messages: [{ role: "user" as const, content: "hi" }] };
  const first = await events(lazy.stream(request));
  const second = await events(lazy.stream(request));
  const plain = await events(direct.stream(request));
  assert.deepEqual(second, first);
  assert.deepEqual(plain, first);
  assert.deepEqual(
    first.filter((event) => event.type === "text").map((event) =>
      (event as { delta: string }).delta
    ),
    ["he", "llo"],
  );
  assert.equal(first[0]?.type, "start");
  assert.equal(srv.requests(), 3);
});

test("closing a handed-out stream early ends it (later next() is done)", async () => {
  await using srv = await sseServer();
  const lazy = new LazyProviderModelClient({ apiKey: "k", apiBase: srv.url });
  const request = { model: "vllm:m", messages: [{ role: "user" as const, content: "hi" }] };
  await events(lazy.stream(request)); // loads the provider client
  const iterator: AsyncIterator<ModelEvent> = lazy.stream(request)[Symbol.asyncIterator]();
  const start = await iterator.next();
  assert.equal(start.done, false);
  await iterator.return?.();
  assert.deepEqual(await iterator.next(), { done: true, value: undefined });
});
