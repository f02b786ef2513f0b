import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BubError } from "../../src/kernel/errors.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { PostgresInbox } from "../../src/tape/postgres_inbox.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { dropSchema, postgresUrl, uniqueSchema, withAdmin } from "./_postgres.ts";

const url = postgresUrl("PostgresInbox");

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
    await fn(a!, b!, schema);
  } finally {
    for (const store of stores) await store.close();
    await dropSchema(url!, schema);
  }
}

if (url) {
  describe("PostgresInbox", () => {
    test("enqueue deduplicates by key and keeps arrival order per session", () =>
      withCluster(async (a, b) => {
        const first = await a.inbox.enqueue("s1", { content: "one" }, { dedupeKey: "u:1" });
        const again = await b.inbox.enqueue("s1", { content: "one" }, { dedupeKey: "u:1" });
        assert.deepEqual(again, { id: first.id, duplicate: true });
        await a.inbox.enqueue("s1", { content: "two" });
        await a.inbox.enqueue("s2", { content: "other" });
        const pending = await b.inbox.pending("s1");
        assert.deepEqual(pending.map((m) => m.body.content), ["one", "two"]);
      }));

    test("a session is claimed by one instance at a time, oldest pending first", () =>
      withCluster(async (a, b) => {
        await a.inbox.enqueue("s1", { content: "1" });
        await a.inbox.enqueue("s2", { content: "2" });
        const [x, y] = await Promise.all([a.inbox.claim("A", 30_000), b.inbox.claim("B", 30_000)]);
        assert.deepEqual([x?.lease.key, y?.lease.key].sort(), ["s1", "s2"]);
        assert.equal(await a.inbox.claim("A", 30_000), null, "nothing left to claim");
        const s1 = [x, y].find((c) => c?.lease.key === "s1")!;
        assert.deepEqual(s1.messages.map((m) => m.body.content), ["1"]);
      }));

    test("complete appends the turn's entries and marks the messages done in one transaction", () =>
      withCluster(async (a, b, schema) => {
        await a.inbox.enqueue("s1", { content: "hi" });
        const claimed = (await a.inbox.claim("A", 30_000))!;
        await a.inbox.complete(claimed.lease, claimed.messages.map((m) => m.id), "t__1", [
          messageEntry({ role: "user", content: "hi" }),
          messageEntry({ role: "assistant", content: "hello" }),
        ]);
        assert.deepEqual(await b.inbox.pending("s1"), []);
        assert.equal((await new TapeQuery("t__1", b.store).all()).length, 2);
        await a.store.releaseLease(claimed.lease);
        assert.equal(await b.inbox.claim("B", 30_000), null, "done messages are not claimed");
        // After a takeover the old owner's completion changes nothing.
        await a.inbox.enqueue("s1", { content: "again" });
        const stale = (await a.inbox.claim("A", 30_000))!;
        await withAdmin(url, (sql) =>
          sql.unsafe(
            `UPDATE "${schema}".bub_leases SET lease_until = clock_timestamp() - interval '1 second'`,
          ));
        const taken = (await b.inbox.claim("B", 30_000))!;
        assert.equal(taken.lease.epoch, stale.lease.epoch + 1);
        await assert.rejects(
          a.inbox.complete(stale.lease, stale.messages.map((m) => m.id), "t__1", [
            messageEntry({ role: "assistant", content: "stale" }),
          ]),
          (error: unknown) => BubError.isInstance(error) && error.details?.reason === "lease_lost",
        );
        assert.deepEqual((await b.inbox.pending("s1")).map((m) => m.body.content), ["again"]);
        assert.equal((await new TapeQuery("t__1", b.store).all()).length, 2);
      }));

    test("listeners hear of new messages (NOTIFY) from another instance", () =>
      withCluster(async (a, b) => {
        const heard: string[] = [];
        const listener = await a.inbox.listen((session) => heard.push(session));
        try {
          await b.inbox.enqueue("s9", { content: "wake up" });
          const deadline = Date.now() + 5_000;
          while (heard.length === 0 && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          assert.deepEqual(heard, ["s9"]);
          await b.inbox.enqueue("s9", { content: "dup" }, { dedupeKey: "k" });
          await b.inbox.enqueue("s9", { content: "dup" }, { dedupeKey: "k" });
          await new Promise((resolve) => setTimeout(resolve, 200));
          assert.deepEqual(heard, ["s9", "s9"], "a duplicate notifies nobody");
        } finally {
          await listener.close();
        }
      }));

    test("bad input is a TypeError", () =>
      withCluster(async (a) => {
        await assert.rejects(a.inbox.enqueue("", { content: "x" }), TypeError);
        await assert.rejects(
          a.inbox.enqueue("s", [] as unknown as Record<string, unknown>),
          TypeError,
        );
        assert.throws(() => new PostgresInbox({} as PostgresTapeStore), TypeError);
      }));
  });
}
