/**
 * Two cluster instances in one process (two frameworks over one PostgreSQL schema): a message
 * for a session whose turn runs on the other instance reaches that owner through the inbox and
 * meets the owner's admission rules there (here: steer into the running turn).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ClusterGateway } from "../../../src/channels/cluster/cluster_gateway.ts";
import { admitDecision } from "../../../src/kernel/channel.ts";
import { connectPg } from "../../../src/tape/postgres/_client.ts";
import { dropSchema, postgresUrl, uniqueSchema } from "../../tape/_postgres.ts";
import { admitBy, type ChannelFixture, channelFixture, contents } from "../_fixtures.ts";

const url = postgresUrl("cluster steering across instances");

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

if (url) {
  test("a message for a session running elsewhere is steered into the owner's running turn", async (t) => {
    const schema = uniqueSchema();
    const steer = admitBy((_content, running) => running ? admitDecision("steer", "busy") : null);
    using a = channelFixture({ admit: steer });
    using b = channelFixture({ admit: steer });
    const instance = (fx: ChannelFixture, owner: string) =>
      new ClusterGateway(fx.framework as never, {
        url,
        schema,
        owner,
        workspace: "/cluster-test",
        leaseSeconds: 5,
        pollSeconds: 5, // NOTIFY, not the poll, must wake the owner
        enabledChannels: "memory",
      });
    const stop = new AbortController();
    const runs = [instance(a, "A").run(stop.signal), instance(b, "B").run(stop.signal)];
    t.after(async () => {
      stop.abort();
      await Promise.allSettled(runs);
      await dropSchema(url, schema);
    });
    await until("both channels", () => a.channel().running && b.channel().running);
    await sleep(200); // both workers listen
    await a.channel().push({ sessionId: "memory:1", chatId: "1", content: "one" });
    await until("the first turn", () => a.model.calls.length + b.model.calls.length === 1);
    const [owner, other] = a.model.calls.length === 1 ? [a, b] : [b, a];
    const pushed = Date.now();
    await other.channel().push({ sessionId: "memory:1", chatId: "1", content: "two" });
    const sql = await connectPg(url, { max: 1 });
    t.after(() => sql.end({ timeout: 5 }));
    const done = async () =>
      (await sql.unsafe(`SELECT count(*) AS n FROM "${schema}".bub_inbox WHERE state = 'done'`))[0]!
        .n;
    // The owner admitted "two" while "one" runs (steered into it): no second turn started yet.
    await sleep(300);
    assert.ok(Date.now() - pushed < 5_000);
    assert.equal(owner.model.calls.length, 1, "the steered message started no turn");
    owner.model.call(0).release();
    assert.deepEqual(contents(await owner.channel().waitForSent(1)), ["reply:one"]);
    // The turn did not consume it: it runs next on the owner as a steering leftover, and both
    // inbox rows complete only when the owner is done with the session.
    await owner.model.waitForCalls(2);
    assert.equal(owner.model.call(1).prompt, "two");
    await sleep(100);
    assert.equal(Number(await done()), 0);
    owner.model.call(1).release();
    await owner.channel().waitForSent(2);
    for (let i = 0; i < 100 && Number(await done()) < 2; i++) await sleep(20);
    assert.equal(Number(await done()), 2);
    assert.equal(other.model.calls.length, 0);
    assert.deepEqual(contents(other.channel().sent), []);
    const completed = await sql.unsafe(
      `SELECT payload::text AS p FROM "${schema}".bub_tape_entries
      WHERE event = 'cluster.turn_completed'`,
    );
    assert.deepEqual(completed.map((row) => JSON.parse(String(row.p)).data.message_ids), [[1, 2]]);
  });
}
