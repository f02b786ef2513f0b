import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import { TelegramChannel } from "../../../src/channels/telegram/telegram_channel.ts";
import { FakeTelegramServer } from "../../../src/testing/fake_telegram.ts";
import { ChannelMessage } from "../../../src/kernel/channel_message.ts";

/** A forward HTTP proxy on 127.0.0.1 that records the absolute URLs it relays. */
async function startProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? "");
    const target = new URL(req.url ?? "/");
    const upstream = request(target, { method: req.method, headers: req.headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("Telegram channel proxy", () => {
  test("Bot API calls go through the configured http proxy", async (t) => {
    await using server = await FakeTelegramServer.start();
    const proxy = await startProxy();
    t.after(() => proxy.close());
    const channel = new TelegramChannel({
      handler: () => Promise.resolve(),
      token: server.token,
      apiRoot: server.apiRoot,
      proxy: proxy.url,
    });
    await channel.send(
      new ChannelMessage({
        sessionId: "telegram:1",
        channel: "telegram",
        chatId: "1",
        content: "via proxy",
      }),
    );
    assert.equal(server.callsOf("sendMessage")[0]?.params.text, "via proxy");
    const file = server.addFile(new Uint8Array([9, 8, 7]), "photos/p.jpg");
    const handled: ChannelMessage[] = [];
    const polling = new TelegramChannel({
      handler: (message) => Promise.resolve(void handled.push(message as ChannelMessage)),
      token: server.token,
      apiRoot: server.apiRoot,
      proxy: proxy.url,
      allowUsers: ["*"],
    });
    t.after(() => polling.stop());
    await polling.start(new AbortController());
    await server.waitForCalls("getUpdates");
    server.pushMessage({
      photo: [{ file_id: file.file_id, file_unique_id: "u", width: 1, height: 1, file_size: 3 }],
    });
    await server.waitForCalls("getUpdates", 2);
    assert.deepEqual(await handled[0]?.media[0]?.dataFetcher?.(), new Uint8Array([9, 8, 7]));
    await polling.stop();
    const root = `${server.apiRoot}/bot${server.token}`;
    assert.equal(proxy.seen[0], `${root}/sendMessage`);
    for (const method of ["getMe", "deleteWebhook", "getUpdates", "getFile"]) {
      assert.ok(proxy.seen.includes(`${root}/${method}`), `${method} went through the proxy`);
    }
    assert.ok(
      proxy.seen.includes(`${server.apiRoot}/file/bot${server.token}/photos/p.jpg`),
      "the download too",
    );
  });
});
