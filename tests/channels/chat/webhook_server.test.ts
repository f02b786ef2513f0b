/**
 * The shared webhook server: routes by platform, refuses bodies over the limit (announced or
 * streamed), answers 404 elsewhere, and closes when its last platform leaves.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { WebhookServer } from "../../../src/channels/chat/webhook_server.ts";

describe("the webhook server", () => {
  test("routes POST /webhooks/<platform> with the whole body; other paths get 404", async () => {
    const server = new WebhookServer({ port: 0 });
    const seen: string[] = [];
    await using _route = await server.register("demo", async (request) => {
      seen.push(await request.text());
      return new Response("ok");
    });
    const response = await fetch(`${server.url}/webhooks/demo`, { method: "POST", body: "{1}" });
    assert.equal(await response.text(), "ok");
    assert.deepEqual(seen, ["{1}"]);
    const other = await fetch(`${server.url}/webhooks/nope`, { method: "POST", body: "x" });
    assert.equal(other.status, 404);
    await other.body?.cancel();
    const get = await fetch(`${server.url}/webhooks/demo`);
    assert.equal(get.status, 404);
    await get.body?.cancel();
  });

  test("a body over the limit is refused with 413 and never reaches the platform", async () => {
    const server = new WebhookServer({ port: 0, maxBodyBytes: 1024 });
    let called = 0;
    await using _route = await server.register("demo", () => {
      called++;
      return Promise.resolve(new Response("ok"));
    });
    const big = await fetch(`${server.url}/webhooks/demo`, {
      method: "POST",
      body: "x".repeat(4096),
    });
    assert.equal(big.status, 413);
    assert.match(await big.text(), /at most 1024 bytes/);
    const streamed = await fetch(`${server.url}/webhooks/demo`, {
      method: "POST",
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 8; i++) controller.enqueue(new Uint8Array(512));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    assert.equal(streamed.status, 413);
    await streamed.body?.cancel();
    assert.equal(called, 0);
  });

  test("a platform registers once; the server stops listening after the last one leaves", async () => {
    const server = new WebhookServer({ port: 0 });
    const handler = () => Promise.resolve(new Response("ok"));
    const first = await server.register("a", handler);
    await assert.rejects(server.register("a", handler), /registered already/);
    const url = server.url;
    await first[Symbol.asyncDispose]();
    assert.throws(() => server.url, /not listening/);
    await assert.rejects(fetch(`${url}/webhooks/a`, { method: "POST", body: "{}" }));
  });

  test("a port outside 0..65535 is a config error", () => {
    assert.throws(() => new WebhookServer({ port: 70000 }), /Invalid webhook_port 70000/);
  });
});
