import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { electedChannel } from "../../../src/channels/cluster/_poller_election.ts";
import { Channel } from "../../../src/channels/channel.ts";
import { PostgresTapeStore } from "../../../src/tape/postgres_store.ts";
import { dropSchema, postgresUrl, uniqueSchema } from "../../tape/_postgres.ts";

const url = postgresUrl("cluster poller election");

/** A long-polling channel that counts its starts. */
class Poller extends Channel {
  readonly name = "poller";
  polling = false;
  starts = 0;
  dropPendingUpdates = true;
  start(): Promise<void> {
    this.starts++;
    this.polling = true;
    return Promise.resolve();
  }
  stop(): Promise<void> {
    this.polling = false;
    return Promise.resolve();
  }
}

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

if (url) {
  test("one candidate polls; a leader whose polling ended polls again; a follower takes over", async (t) => {
    const schema = uniqueSchema();
    t.after(() => dropSchema(url, schema));
    await using store = new PostgresTapeStore(url, { schema });
    const first = new Poller();
    const second = new Poller();
    const options = { store, job: "telegram-poller:1", retryMs: 50 };
    const a = electedChannel(first, options);
    const b = electedChannel(second, options);
    t.after(async () => {
      await a.stop();
      await b.stop();
    });
    await a.start(new AbortController());
    await b.start(new AbortController());
    assert.equal(first.starts, 1);
    assert.equal(first.dropPendingUpdates, false, "a cluster poller keeps pending updates");
    assert.equal(second.starts, 0);
    assert.equal(b.name, "poller");
    first.polling = false; // e.g. getUpdates failed with 409 during a takeover
    await until("the leader polling again", () => first.starts === 2);
    await sleep(200);
    assert.equal(second.starts, 0, "the follower never polls while the leader lives");
    const stopped = Date.now();
    await a.stop(); // resigns, as a dead process's connection would
    await until("the follower leading", () => second.starts === 1);
    assert.ok(Date.now() - stopped < 1_000);
    assert.equal(first.polling, false);
  });
}
