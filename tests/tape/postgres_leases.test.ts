import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BubError } from "../../src/kernel/errors.ts";
import { messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { PG_SCHEMA_VERSION } from "../../src/tape/postgres/_schema.ts";
import { PostgresTapeStore, type TapeLease } from "../../src/tape/postgres_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { dropSchema, postgresUrl, uniqueSchema, withAdmin } from "./_postgres.ts";

const url = postgresUrl("PostgreSQL leases");

/** Two stores (two instances) over one fresh schema, dropped afterwards. */
async function withInstances(
  fn: (a: PostgresTapeStore, b: PostgresTapeStore, schema: string) => Promise<void>,
): Promise<void> {
  const schema = uniqueSchema();
  const a = new PostgresTapeStore(url!, { schema });
  const b = new PostgresTapeStore(url!, { schema });
  try {
    await fn(a, b, schema);
  } finally {
    await a.close();
    await b.close();
    await dropSchema(url!, schema);
  }
}

function said(owner: string, n: number): TapeEntry {
  return messageEntry({ role: "user", content: `${owner}${n}` }, { owner });
}

function isLeaseLost(error: unknown): boolean {
  assert.ok(BubError.isInstance(error), String(error));
  assert.equal(error.kind, "temporary");
  assert.equal(error.details?.reason, "lease_lost");
  assert.match(
    error.message,
    /Cannot append to tape "a__b": the lease s1 \(epoch 1\) of A was lost/,
  );
  return true;
}

/** Makes the lease of `key` expire now (as if its owner had stopped renewing). */
async function expire(schema: string, key: string): Promise<void> {
  await withAdmin(url!, (sql) =>
    sql.unsafe(
      `UPDATE "${schema}".bub_leases SET lease_until = clock_timestamp() - interval '1 second' WHERE key = $1`,
      [key],
    ));
}

if (url) {
  describe("PostgresTapeStore leases", () => {
    test("one owner at a time; a release hands the key over with the next epoch", () =>
      withInstances(async (a, b) => {
        const first = await a.acquireLease("s1", "A", 30_000);
        assert.equal(first?.epoch, 1);
        assert.ok(first!.expiresAt.getTime() > Date.now() + 20_000);
        assert.equal(await b.acquireLease("s1", "B", 30_000), null);
        assert.equal(await a.acquireLease("s1", "A", 30_000), null, "held: renew, not re-acquire");
        assert.equal((await b.acquireLease("s2", "B", 30_000))?.epoch, 1, "keys are independent");
        assert.equal(await a.releaseLease(first!), true);
        const second = await b.acquireLease("s1", "B", 30_000);
        assert.deepEqual([second?.owner, second?.epoch], ["B", 2]);
        assert.equal(await a.releaseLease(first!), false, "a lost lease cannot be released");
      }));

    test("renewal extends a held lease and reports a lost one as null", () =>
      withInstances(async (a, b, schema) => {
        const lease = await a.acquireLease("s1", "A", 1_000);
        const renewed = await a.renewLease(lease!, 60_000);
        assert.equal(renewed?.epoch, 1);
        assert.ok(renewed!.expiresAt.getTime() - lease!.expiresAt.getTime() > 50_000);
        await expire(schema, "s1");
        const taken = await b.acquireLease("s1", "B", 60_000);
        assert.equal(taken?.epoch, 2);
        assert.equal(await a.renewLease(renewed!, 60_000), null);
      }));

    test("after a takeover the old owner's fenced appends store nothing and fail with lease_lost", () =>
      withInstances(async (a, b, schema) => {
        const lease = (await a.acquireLease("s1", "A", 60_000))!;
        const mine = a.fenced(lease);
        await mine.append("a__b", said("A", 1));
        await mine.appendMany!("a__b", [said("A", 2), said("A", 3)]);
        await expire(schema, "s1");
        const next = (await b.acquireLease("s1", "B", 60_000))!;
        await assert.rejects(mine.append("a__b", said("A", 4)), isLeaseLost);
        await assert.rejects(mine.appendMany!("a__b", [said("A", 5), said("A", 6)]), isLeaseLost);
        await b.fenced(next).append("a__b", said("B", 1));
        const entries = await new TapeQuery("a__b", b).all();
        assert.deepEqual(entries.map((e) => [e.id, e.payload.content]), [
          [1, "A1"],
          [2, "A2"],
          [3, "A3"],
          [4, "B1"],
        ]);
      }));

    test("appends racing a takeover: every old-owner entry precedes the new owner's, ids gapless", () =>
      withInstances(async (a, b, schema) => {
        const lease = (await a.acquireLease("s1", "A", 60_000))!;
        const mine = a.fenced(lease);
        let stored = 0;
        let refused = 0;
        const writer = (async () => {
          for (let i = 0; i < 400 && refused < 5; i++) {
            try {
              await mine.append("a__b", said("A", i));
              stored++;
            } catch (error) {
              isLeaseLost(error);
              refused++;
            }
          }
        })();
        await new Promise((resolve) => setTimeout(resolve, 150));
        await expire(schema, "s1");
        let next: TapeLease | null = null;
        while (!next) next = await b.acquireLease("s1", "B", 60_000);
        await b.fenced(next).appendMany!("a__b", [said("B", 1), said("B", 2)]);
        await writer;
        assert.ok(stored > 0 && refused > 0, `stored ${stored}, refused ${refused}`);
        const entries = await new TapeQuery("a__b", a).all();
        assert.deepEqual(entries.map((e) => e.id), entries.map((_, i) => i + 1));
        const owners = entries.map((e) => e.meta.owner).join("");
        assert.match(owners, /^A+BB$/);
        assert.equal(owners.length, stored + 2);
      }));

    test("a version 1 database is migrated on first use (leases and inbox tables added)", () =>
      withInstances(async (a, _b, schema) => {
        await a.append("a__b", said("A", 1));
        await withAdmin(url, async (sql) => {
          await sql.unsafe(`DROP TABLE "${schema}".bub_leases, "${schema}".bub_inbox`);
          await sql.unsafe(`ALTER TABLE "${schema}".bub_tapes DROP COLUMN batch`);
          await sql.unsafe(`UPDATE "${schema}".bub_schema_version SET version = 1`);
        });
        const fresh = new PostgresTapeStore(url, { schema });
        try {
          assert.equal((await fresh.acquireLease("s1", "A", 1_000))?.epoch, 1);
          assert.deepEqual((await new TapeQuery("a__b", fresh).all()).map((e) => e.id), [1]);
          const rows = await withAdmin(
            url,
            (sql) => sql.unsafe(`SELECT version FROM "${schema}".bub_schema_version`),
          );
          assert.deepEqual(rows.map((r) => Number(r.version)), [PG_SCHEMA_VERSION]);
        } finally {
          await fresh.close();
        }
      }));

    test("bad lease arguments are TypeErrors", () =>
      withInstances(async (a) => {
        await assert.rejects(a.acquireLease("", "A", 1_000), TypeError);
        await assert.rejects(a.acquireLease("s", "A", 0), /ttlMs must be a number > 0/);
      }));
  });
}
