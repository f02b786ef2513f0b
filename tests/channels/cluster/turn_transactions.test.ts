/**
 * Fewer PostgreSQL transactions per cluster turn, without losing anything: the claim returns the
 * session's messages and where its last turn started in one statement (and never a message a
 * previous owner completed while the claim waited for its lease), records the start of the turn
 * of the oldest message as an append would, and the completion of an idle
 * session's last turn gives the lease up in the same transaction, only when no other message is
 * pending.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { connectPg } from "../../../src/tape/postgres/_client.ts";
import { eventEntry } from "../../../src/tape/entry.ts";
import { sessionTapeName } from "../../../src/tape/naming.ts";
import { PostgresInbox } from "../../../src/tape/postgres_inbox.ts";
import { PostgresTapeStore } from "../../../src/tape/postgres_store.ts";
import { TapeQuery } from "../../../src/tape/query.ts";
import { dropSchema, postgresUrl, uniqueSchema } from "../../tape/_postgres.ts";

const url = postgresUrl("cluster turn transactions");
const WORKSPACE = "/srv/bub-workspace";
const done = (ids: number[]) => eventEntry("cluster.turn_completed", { message_ids: ids });

/** Two instances (stores + inboxes) over one fresh schema, dropped afterwards. */
async function withCluster(
  fn: (
    a: { store: PostgresTapeStore; inbox: PostgresInbox },
    b: { store: PostgresTapeStore; inbox: PostgresInbox },
    schema: string,
  ) => Promise<void>,
): Promise<void> {
  const schema = uniqueSchema();
  const stores = [0, 1].map(() => new PostgresTapeStore(url!, { schema }));
  try {
    const [a, b] = stores.map((store) => ({ store, inbox: new PostgresInbox(store) }));
    await a!.store.listTapes(); // the tables
    await fn(a!, b!, schema);
  } finally {
    for (const store of stores) await store.close();
    await dropSchema(url!, schema);
  }
}

describe("cluster turn transactions", { skip: url === null ? "no PostgreSQL" : false }, () => {
  test("the last completion of an idle session releases its lease in the same transaction", () =>
    withCluster(async (a, b) => {
      await a.inbox.enqueue("s1", { content: "hi" });
      const claim = (await a.inbox.claim("A", 60_000))!;
      const tape = sessionTapeName("s1", WORKSPACE);
      const result = await a.inbox.complete(claim.lease, [claim.messages[0]!.id], tape, [
        done([claim.messages[0]!.id]),
      ], { release: true });
      assert.deepEqual(result, { released: true });
      assert.deepEqual(await a.inbox.pending("s1"), []);
      // Released, not expired: the next message is claimed at once, by anyone.
      await a.inbox.enqueue("s1", { content: "next" });
      const next = (await b.inbox.claim("B", 60_000))!;
      assert.equal(next.lease.epoch, claim.lease.epoch + 1);
      assert.deepEqual(next.messages.map((m) => m.body.content), ["next"]);
    }));

  test("a completion keeps the lease while another message is pending, also one enqueued after the claim", () =>
    withCluster(async (a, b) => {
      await a.inbox.enqueue("s1", { content: "one" });
      const claim = (await a.inbox.claim("A", 60_000))!;
      await a.inbox.enqueue("s1", { content: "two" });
      const tape = sessionTapeName("s1", WORKSPACE);
      const id = claim.messages[0]!.id;
      assert.deepEqual(
        await a.inbox.complete(claim.lease, [id], tape, [done([id])], { release: true }),
        { released: false },
      );
      assert.equal(await b.inbox.claim("B", 60_000), null, "the lease is still A's");
      assert.deepEqual((await a.inbox.pending("s1")).map((m) => m.body.content), ["two"]);
      // Without `release` a completion never gives the lease up.
      const [two] = await a.inbox.pending("s1");
      assert.deepEqual(
        await a.inbox.complete(claim.lease, [two!.id], tape, [done([two!.id])]),
        { released: false },
      );
      assert.equal(await a.store.renewLease(claim.lease, 60_000) !== null, true);
    }));

  test("the claim reads where the session's last turn started, on the tape its name gives", () =>
    withCluster(async (a) => {
      const tape = sessionTapeName("telegram:42", WORKSPACE);
      await a.store.appendMany(tape, [
        eventEntry("cluster.turn_started", { message_id: 1, owner: "old", epoch: 1 }),
        eventEntry("cluster.turn_started", { message_id: 2, owner: "old", epoch: 1 }),
        eventEntry("other", {}),
      ]);
      await a.inbox.enqueue("telegram:42", { content: "hi" });
      await a.inbox.enqueue("telegram:7", { content: "hey" });
      const prefix = `${tape.split("__")[0]}__`;
      const claims = await a.inbox.claimMany("A", 60_000, 10, {
        latestEvent: { tapePrefix: prefix, name: "cluster.turn_started" },
      });
      const byKey = new Map(claims.map((claim) => [claim.lease.key, claim]));
      assert.deepEqual(byKey.get("telegram:42")!.latestEvent, {
        message_id: 2,
        owner: "old",
        epoch: 1,
      });
      assert.deepEqual(byKey.get("telegram:42")!.messages.map((m) => m.body.content), ["hi"]);
      assert.equal(byKey.get("telegram:7")!.latestEvent, null);
    }));

  test("the claim records the start of the turn of each session's oldest message, as an append would", () =>
    withCluster(async (a) => {
      const tape = sessionTapeName("telegram:42", WORKSPACE);
      await a.store.appendMany(tape, [
        eventEntry("cluster.turn_started", { message_id: 1, owner: "old", epoch: 1 }),
      ]);
      const first = await a.inbox.enqueue("telegram:42", { content: "one" });
      await a.inbox.enqueue("telegram:42", { content: "two" });
      const other = await a.inbox.enqueue("telegram:7", { content: "hey" });
      const prefix = `${tape.split("__")[0]}__`;
      const date = "2026-01-02T03:04:05.678000+00:00";
      const claims = await a.inbox.claimMany("A", 60_000, 10, {
        latestEvent: { tapePrefix: prefix, name: "cluster.turn_started", record: date },
      });
      const byKey = new Map(claims.map((claim) => [claim.lease.key, claim]));
      const claim = byKey.get("telegram:42")!;
      // What was there before the claim, and what the claim recorded.
      assert.deepEqual(claim.latestEvent, { message_id: 1, owner: "old", epoch: 1 });
      assert.equal(claim.recorded, first.id);
      assert.equal(byKey.get("telegram:7")!.recorded, other.id);
      const entries = await a.store.fetchAll(new TapeQuery(tape, a.store));
      assert.deepEqual(entries.map((entry) => entry.id), [1, 2]);
      assert.deepEqual(entries[1], {
        id: 2,
        kind: "event",
        payload: {
          name: "cluster.turn_started",
          data: { message_id: first.id, owner: "A", epoch: claim.lease.epoch },
        },
        meta: {},
        date,
      });
      // The tape's head moved: the next append follows.
      await a.store.appendMany(tape, [eventEntry("after", {})]);
      const ids = (await a.store.fetchAll(new TapeQuery(tape, a.store))).map((entry) => entry.id);
      assert.deepEqual(ids, [1, 2, 3]);
      const fresh = sessionTapeName("telegram:7", WORKSPACE);
      assert.deepEqual((await a.store.fetchAll(new TapeQuery(fresh, a.store))).map((e) => e.id), [
        1,
      ]);
    }));

  test("a claim waiting for an expired lease does not return the messages its owner completed meanwhile", () =>
    withCluster(async (a, b, schema) => {
      await a.inbox.enqueue("s1", { content: "hi" });
      const claim = (await a.inbox.claim("A", 200))!;
      await new Promise((resolve) => setTimeout(resolve, 300)); // A's lease expires
      // A's late completion, as one transaction held open: the fenced lease row is locked and
      // the message is done, not committed yet.
      const sql = await connectPg(url!, { max: 1 });
      try {
        let claimed: Promise<unknown> | null = null;
        await sql.begin(async (tx) => {
          const held = await tx.unsafe(
            `SELECT 1 FROM "${schema}".bub_leases WHERE key = 's1' AND owner = 'A' AND epoch = $1
            FOR SHARE`,
            [claim.lease.epoch],
          );
          assert.equal(held.length, 1);
          await tx.unsafe(`UPDATE "${schema}".bub_inbox SET state = 'done' WHERE session = 's1'`);
          // B's claim starts now (its snapshot sees the message pending) and waits for the lock.
          claimed = b.inbox.claim("B", 60_000);
          await new Promise((resolve) => setTimeout(resolve, 300));
        });
        const taken = (await claimed) as Awaited<ReturnType<PostgresInbox["claim"]>>;
        if (taken !== null) assert.deepEqual(taken.messages, [], "a completed message returned");
      } finally {
        await sql.end({ timeout: 5 });
      }
    }));
});
