/**
 * The worker claims many sessions at once (their turns run together, none waits behind a held
 * one), keeps each session's order, and holds an idle session briefly for its next message (no
 * new lease) before releasing it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ClusterGateway } from "../../../src/channels/cluster/cluster_gateway.ts";
import { connectPg, type PgRow } from "../../../src/tape/postgres/_client.ts";
import { dropSchema, postgresUrl, uniqueSchema } from "../../tape/_postgres.ts";
import { channelFixture, contents } from "../_fixtures.ts";

const url = postgresUrl("cluster claims");

function message(chat: string, content: string): Record<string, unknown> {
  return { sessionId: `memory:${chat}`, channel: "memory", chatId: chat, content };
}

if (url) {
  test("sessions are claimed together, run in order, and an idle one is held briefly", async (t) => {
    const schema = uniqueSchema();
    using fx = channelFixture();
    const gateway = new ClusterGateway(fx.framework as never, {
      url,
      schema,
      owner: "A",
      workspace: "/cluster-test",
      leaseSeconds: 6,
      holdIdleSeconds: 1, // at most lease / 3
      pollSeconds: 0.1,
      enabledChannels: "memory",
    });
    const sql = await connectPg(url, { max: 1 });
    const stop = new AbortController();
    const running = gateway.run(stop.signal);
    t.after(async () => {
      stop.abort();
      await running;
      await sql.end({ timeout: 5 });
      await dropSchema(url, schema);
    });
    const leases = async (): Promise<PgRow[]> =>
      await sql.unsafe(`SELECT key, owner, epoch FROM "${schema}".bub_leases ORDER BY key`);

    // Five sessions at once: all five turns start before any is released.
    for (let chat = 1; chat <= 5; chat++) {
      await gateway.inbox.enqueue(`memory:${chat}`, message(String(chat), `first ${chat}`));
    }
    await fx.model.waitForCalls(5);
    for (let i = 0; i < 5; i++) fx.model.call(i).release();
    assert.equal((await fx.channel().waitForSent(5)).length, 5);
    assert.deepEqual((await leases()).map((row) => [row.key, row.owner, Number(row.epoch)]), [
      ["memory:1", "A", 1],
      ["memory:2", "A", 1],
      ["memory:3", "A", 1],
      ["memory:4", "A", 1],
      ["memory:5", "A", 1],
    ]);

    // The next message of a held idle session runs under the same lease (no new claim).
    await gateway.inbox.enqueue("memory:1", message("1", "second 1"));
    await fx.model.waitForCalls(6);
    fx.model.call(5).release();
    const sent = contents(await fx.channel().waitForSent(6));
    assert.equal(sent[5], "reply:second 1");
    assert.equal(Number((await leases())[0]!.epoch), 1, "same lease, no claim");

    // Idle past the hold: every lease is released.
    let owners: unknown[] = [];
    for (let i = 0; i < 100; i++) {
      owners = (await leases()).map((row) => row.owner);
      if (owners.every((owner) => owner === null)) break;
      await sleep(50);
    }
    assert.deepEqual(owners, [null, null, null, null, null]);

    // A burst for one session runs in arrival order (one turn at a time; later messages may
    // join the running turn by the admission rules, never overtake it).
    for (const n of [1, 2, 3]) await gateway.inbox.enqueue("memory:9", message("9", `burst ${n}`));
    let released = 6;
    let states: unknown[] = [];
    for (let i = 0; i < 500; i++) {
      while (fx.model.calls.length > released) fx.model.call(released++).release();
      states = (await sql.unsafe(
        `SELECT state FROM "${schema}".bub_inbox WHERE session = 'memory:9' ORDER BY id`,
      )).map((row) => row.state);
      if (states.every((state) => state === "done")) break;
      await sleep(20);
    }
    assert.deepEqual(states, ["done", "done", "done"]);
    const prompts = fx.model.calls.slice(6).map((call) => call.prompt).join("\n");
    const at = [1, 2, 3].map((n) => prompts.indexOf(`burst ${n}`));
    assert.ok(at[0]! >= 0 && at[0]! < at[1]! && at[1]! < at[2]!, `order: ${prompts}`);
  });
}
