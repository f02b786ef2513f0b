import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LazyTelegramChannel } from "../../src/builtin/lazy_telegram_channel.ts";
import { TelegramChannel } from "../../src/channels/telegram/telegram_channel.ts";

const options = { handler: () => Promise.resolve(), token: "123:abc" };

describe("LazyTelegramChannel", () => {
  test("dropPendingUpdates set before the import reaches the channel (a cluster's elected poller keeps pending updates)", async () => {
    const lazy = new LazyTelegramChannel(options);
    assert.equal(lazy.dropPendingUpdates, true);
    lazy.dropPendingUpdates = false;
    assert.equal(lazy.loaded, null);
    const telegram = await lazy.implementation();
    assert.ok(telegram instanceof TelegramChannel);
    assert.equal(telegram.dropPendingUpdates, false);
    lazy.dropPendingUpdates = true;
    assert.equal(telegram.dropPendingUpdates, true);
    assert.equal(lazy.polling, false);
  });

  test("media references and fetchers reach the channel; a source that is not a Telegram file gives null", async () => {
    const lazy = new LazyTelegramChannel(options);
    assert.equal(lazy.mediaSource({ type: "image" }), null);
    assert.equal(lazy.mediaFetcher({}), null);
    assert.equal(typeof lazy.mediaFetcher({ fileId: "f1" }), "function");
    await lazy.implementation();
    assert.equal(lazy.mediaSource({ type: "image" }), null);
  });

  test("a typing lifespan disposed without entering imports nothing and does nothing", async () => {
    const lazy = new LazyTelegramChannel(options);
    const lifespan = lazy.typingLifespan("42");
    await lifespan[Symbol.asyncDispose]();
    assert.equal(lazy.loaded, null);
    assert.equal(lazy.name, "telegram");
    assert.equal(lazy.enabled, true);
    assert.equal(new LazyTelegramChannel({ ...options, token: " " }).enabled, false);
  });
});
