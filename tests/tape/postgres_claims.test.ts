import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { PgRow } from "../../src/tape/postgres/_client.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { type InboxClaim, PostgresInbox } from "../../src/tape/postgres_inbox.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { dropSchema, postgresUrl, uniqueSchema, withAdmin } from "./_postgres.ts";

const url = postgresUrl("PostgresInbox.claimMany");

type Instance = { store: PostgresTapeStore; inbox: PostgresInbox };

/** `count` instances (stores + inboxes) over one fresh schema, dropped afterwards. */
async function withInstances(
  count: number,
  fn: (instances: Instance[], schema: string) => Promise<void>,
): Promise<void> {
  const schema = uniqueSchema();
  const stores = Array.from({ length: count }, () => new PostgresTapeStore(url!, { schema }));
  try {
    await fn(stores.map((store) => ({ store, inbox: new PostgresInbox(store) })), schema);
  } finally {
    for (const store of stores) await store.close();
    await dropSchema(url!, schema);
  }
}

function contents(claim: InboxClaim | undefined): unknown[] {
  return (claim?.messages ?? []).map((m) => m.body.content);
}

if (url) {
  describe("PostgresInbox.claimMany", () => {
    test("several sessions in one claim, oldest first, each with its messages in order", () =>
      withInstances(1, async ([a]) => {
        const { inbox } = a!;
        for (const [session, content] of [["s2", "2a"], ["s1", "1a"], ["s3", "3a"], ["s1", "1b"]]) {
          await inbox.enqueue(session!, { content });
        }
        await inbox.enqueue("s2", { content: "2b" });
        const claims = await inbox.claimMany("A", 30_000, 2);
        assert.deepEqual(claims.map((c) => c.lease.key), ["s2", "s1"], "limit, oldest first");
        assert.deepEqual(contents(claims[0]), ["2a", "2b"]);
        assert.deepEqual(contents(claims[1]), ["1a", "1b"]);
        for (const claim of claims) {
          assert.equal(claim.lease.owner, "A");
          assert.equal(claim.lease.epoch, 1);
          assert.ok(claim.lease.expiresAt.getTime() > Date.now() + 20_000);
        }
        const rest = await inbox.claimMany("A", 30_000, 10);
        assert.deepEqual(rest.map((c) => c.lease.key), ["s3"], "held sessions are skipped");
        assert.deepEqual(await inbox.claimMany("B", 30_000, 10), []);
      }));

    test("concurrent claims never give one session to two owners", () =>
      withInstances(3, async (instances, schema) => {
        const sessions = Array.from({ length: 40 }, (_, i) => `s${i}`);
        for (let round = 0; round < 3; round++) {
          for (const session of sessions) {
            await instances[0]!.inbox.enqueue(session, { content: `${session}/${round}` });
          }
          const results = await Promise.all(
            instances.flatMap(({ inbox }, i) =>
              [0, 1].map(() => inbox.claimMany(`I${i}`, 30_000, 16))
            ),
          );
          const owners = new Map<string, string>();
          const claims = results.flat();
          for (const claim of claims) {
            assert.ok(!owners.has(claim.lease.key), `${claim.lease.key} claimed twice`);
            owners.set(claim.lease.key, claim.lease.owner);
            assert.deepEqual(contents(claim), [`${claim.lease.key}/${round}`]);
          }
          const leftover = await instances[1]!.inbox.claimMany("late", 30_000, 100);
          for (const claim of leftover) owners.set(claim.lease.key, claim.lease.owner);
          assert.deepEqual([...owners.keys()].sort(), [...sessions].sort(), "every session once");
          // The rows say the same: one owner per session, epoch = rounds taken so far.
          const rows: PgRow[] = await withAdmin(
            url,
            (sql) => sql.unsafe(`SELECT key, owner, epoch FROM "${schema}".bub_leases`),
          );
          assert.equal(rows.length, sessions.length);
          for (const row of rows) {
            assert.equal(row.owner, owners.get(String(row.key)));
            assert.equal(Number(row.epoch), round + 1);
          }
          // Each owner completes its message and releases the session for the next round.
          for (const claim of [...claims, ...leftover]) {
            const { store, inbox } = instances[0]!;
            await inbox.complete(
              claim.lease,
              claim.messages.map((m) => m.id),
              `t__${claim.lease.key}`,
              [
                messageEntry({ role: "assistant", content: "ok" }),
              ],
            );
            assert.equal(await store.releaseLease(claim.lease), true);
          }
        }
      }));

    test("an expired lease is claimed again with the next epoch; done messages are not", () =>
      withInstances(2, async ([a, b], schema) => {
        await a!.inbox.enqueue("s1", { content: "one" });
        await a!.inbox.enqueue("s2", { content: "two" });
        const [first, second] = await a!.inbox.claimMany("A", 30_000, 5);
        await a!.inbox.complete(first!.lease, first!.messages.map((m) => m.id), "t__1", []);
        await a!.inbox.enqueue("s1", { content: "three" });
        await withAdmin(url, (sql) =>
          sql.unsafe(
            `UPDATE "${schema}".bub_leases SET lease_until = clock_timestamp() - interval '1 second'`,
          ));
        const taken = await b!.inbox.claimMany("B", 30_000, 5);
        assert.deepEqual(taken.map((c) => [c.lease.key, c.lease.epoch]), [["s2", 2], ["s1", 2]]);
        assert.deepEqual(contents(taken[0]), ["two"]);
        assert.deepEqual(contents(taken[1]), ["three"], "the completed message is not returned");
        assert.equal(second!.lease.key, "s2");
        assert.equal(
          await a!.store.renewLease(second!.lease, 30_000),
          null,
          "the old lease is lost",
        );
      }));

    test("share takes a part of the waiting sessions (at least one), leaving the rest", () =>
      withInstances(2, async ([a, b]) => {
        for (let i = 1; i <= 5; i++) await a!.inbox.enqueue(`s${i}`, { content: `${i}` });
        const first = await a!.inbox.claimMany("A", 30_000, 10, { share: 2 });
        assert.deepEqual(first.map((c) => c.lease.key), ["s1", "s2", "s3"], "ceil(5 / 2)");
        const second = await b!.inbox.claimMany("B", 30_000, 10, { share: 2 });
        assert.deepEqual(second.map((c) => c.lease.key), ["s4"]);
        const last = await b!.inbox.claimMany("B", 30_000, 10, { share: 2 });
        assert.deepEqual(last.map((c) => c.lease.key), ["s5"], "at least one");
      }));

    test("bad input is a TypeError", () =>
      withInstances(1, async ([a]) => {
        await assert.rejects(a!.inbox.claimMany("A", 30_000, 0), TypeError);
        await assert.rejects(a!.inbox.claimMany("A", 30_000, 1.5), TypeError);
        await assert.rejects(a!.inbox.claimMany("", 30_000, 1), TypeError);
        await assert.rejects(a!.inbox.claimMany("A", 30_000, 1, { share: 0.5 }), TypeError);
      }));
  });
}
