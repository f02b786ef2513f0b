/**
 * An inbox row that cannot be decoded (written by another version, or by hand) completes as
 * rejected instead of being claimed again forever; the session's next message still runs.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ClusterGateway } from "../../../src/channels/cluster/cluster_gateway.ts";
import { connectPg } from "../../../src/tape/postgres/_client.ts";
import { dropSchema, postgresUrl, uniqueSchema } from "../../tape/_postgres.ts";
import { channelFixture, contents } from "../_fixtures.ts";

const url = postgresUrl("cluster rejected inbox rows");

if (url) {
  test("an undecodable inbox row is completed as rejected and the next message runs", async (t) => {
    const schema = uniqueSchema();
    using fx = channelFixture();
    const gateway = new ClusterGateway(fx.framework as never, {
      url,
      schema,
      owner: "A",
      workspace: "/cluster-test",
      leaseSeconds: 5,
      pollSeconds: 0.1,
      enabledChannels: "memory",
    });
    const stop = new AbortController();
    const running = gateway.run(stop.signal);
    t.after(async () => {
      stop.abort();
      await running;
      await dropSchema(url, schema);
    });
    await gateway.inbox.enqueue("memory:1", { nonsense: true });
    await gateway.inbox.enqueue("memory:1", {
      sessionId: "memory:1",
      channel: "memory",
      chatId: "1",
      content: "hello",
    });
    await fx.model.waitForCalls(1);
    fx.model.call(0).release();
    assert.deepEqual(contents(await fx.channel().waitForSent(1)), ["reply:hello"]);
    const sql = await connectPg(url, { max: 1 });
    t.after(() => sql.end({ timeout: 5 }));
    let states: string[] = [];
    for (let i = 0; i < 100; i++) {
      states = (await sql.unsafe(`SELECT state FROM "${schema}".bub_inbox ORDER BY id`))
        .map((row) => String(row.state));
      if (states.every((state) => state === "done")) break;
      await sleep(20);
    }
    assert.deepEqual(states, ["done", "done"]);
    const events = await sql.unsafe(
      `SELECT event FROM "${schema}".bub_tape_entries WHERE event LIKE 'cluster.%' ORDER BY id`,
    );
    assert.deepEqual(events.map((row) => row.event), [
      "cluster.turn_started",
      "cluster.message_rejected",
      "cluster.turn_started",
      "cluster.turn_completed",
    ]);
  });
}
