import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BubError } from "../../src/kernel/errors.ts";
import { anchorEntry, eventEntry, messageEntry } from "../../src/tape/entry.ts";
import { PG_SCHEMA_VERSION } from "../../src/tape/postgres/_schema.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { dropSchema, postgresUrl, uniqueSchema, withAdmin } from "./_postgres.ts";
import { describeStoreConformance } from "./store_conformance.ts";

const url = postgresUrl("PostgresTapeStore");

/** A store in a fresh schema, dropped afterwards. */
async function withStore(
  fn: (store: PostgresTapeStore, schema: string) => Promise<void>,
): Promise<void> {
  const schema = uniqueSchema();
  const store = new PostgresTapeStore(url!, { schema });
  try {
    await fn(store, schema);
  } finally {
    await store.close();
    await dropSchema(url!, schema);
  }
}

if (url) {
  describeStoreConformance("PostgresTapeStore", () => {
    const schema = uniqueSchema();
    const store = new PostgresTapeStore(url, { schema });
    return Promise.resolve({
      store,
      cleanup: async () => (await store.close(), await dropSchema(url, schema)),
    });
  });

  describe("PostgresTapeStore", () => {
    test("the schema is created on first use with the version table at the current version", () =>
      withStore(async (store, schema) => {
        await store.append("a__b", messageEntry({ role: "user", content: "x" }));
        const rows = await withAdmin(
          url,
          (sql) => sql.unsafe(`SELECT version FROM "${schema}".bub_schema_version`),
        );
        assert.deepEqual(rows.map((r) => Number(r.version)), [PG_SCHEMA_VERSION]);
      }));

    test("a schema newer than the code is a config BubError naming both versions", () =>
      withStore(async (store, schema) => {
        await store.listTapes();
        await withAdmin(
          url,
          (sql) =>
            sql.unsafe(`UPDATE "${schema}".bub_schema_version SET version = $1`, [
              PG_SCHEMA_VERSION + 1,
            ]),
        );
        const fresh = new PostgresTapeStore(url, { schema });
        try {
          await assert.rejects(fresh.listTapes(), (error: unknown) => {
            assert.ok(BubError.isInstance(error), String(error));
            assert.equal(error.kind, "config");
            assert.match(
              error.message,
              new RegExp(`schema version ${PG_SCHEMA_VERSION + 1} is newer`),
            );
            assert.match(error.message, new RegExp(`understands \\(${PG_SCHEMA_VERSION}\\)`));
            return true;
          });
        } finally {
          await fresh.close();
        }
      }));

    test("two stores opening one new schema at once both work (migration runs once)", async () => {
      const schema = uniqueSchema();
      const a = new PostgresTapeStore(url, { schema });
      const b = new PostgresTapeStore(url, { schema });
      try {
        await Promise.all([
          a.append("a__b", messageEntry({ role: "user", content: "1" })),
          b.append("a__b", messageEntry({ role: "user", content: "2" })),
        ]);
        const entries = await new TapeQuery("a__b", a).all();
        assert.deepEqual(entries.map((e) => e.id), [1, 2]);
      } finally {
        await a.close();
        await b.close();
        await dropSchema(url, schema);
      }
    });

    test("appends from two stores (two pools) interleave without id gaps or duplicates", () =>
      withStore(async (store, schema) => {
        const other = new PostgresTapeStore(url, { schema });
        try {
          await Promise.all(
            Array.from({ length: 40 }, (_, i) =>
              (i % 2 ? store : other).appendMany("a__b", [
                messageEntry({ role: "user", content: `${i}a` }),
                messageEntry({ role: "user", content: `${i}b` }),
              ])),
          );
          const entries = await new TapeQuery("a__b", store).all();
          assert.deepEqual(entries.map((e) => e.id), Array.from({ length: 80 }, (_, i) => i + 1));
          for (let i = 0; i < 80; i += 2) {
            const first = String(entries[i]!.payload.content);
            assert.equal(
              entries[i + 1]!.payload.content,
              first.replace("a", "b"),
              "batch kept together",
            );
          }
        } finally {
          await other.close();
        }
      }));

    test("a batch with an entry PostgreSQL rejects stores nothing and leaves ids gapless", () =>
      withStore(async (store) => {
        await store.append("a__b", messageEntry({ role: "user", content: "kept" }));
        // A NUL character cannot be stored in a text column.
        await assert.rejects(
          store.appendMany("a__b", [
            messageEntry({ role: "user", content: "lost" }),
            { ...messageEntry({ role: "user", content: "x" }), kind: "bad\0kind" },
          ]),
        );
        await store.append("a__b", messageEntry({ role: "user", content: "next" }));
        const entries = await new TapeQuery("a__b", store).all();
        assert.deepEqual(entries.map((e) => [e.id, e.payload.content]), [[1, "kept"], [2, "next"]]);
      }));

    test("payload key order and unicode are kept exactly", () =>
      withStore(async (store) => {
        const payload = { z: 1, a: { y: "é\u0000😀", b: [3, 2, 1] }, m: 1e-7 };
        await store.append("a__b", eventEntry("e", payload));
        const [read] = await new TapeQuery("a__b", store).all();
        assert.deepEqual(Object.keys(read!.payload), ["name", "data"]);
        assert.deepEqual(Object.keys(read!.payload.data as object), ["z", "a", "m"]);
        assert.deepEqual(read!.payload.data, payload);
      }));

    test("latestEvents answers the newest event per name in tape order", () =>
      withStore(async (store) => {
        await store.appendMany("a__b", [
          eventEntry("x", { n: 1 }),
          eventEntry("y", { n: 2 }),
          anchorEntry("x"),
          eventEntry("x", { n: 3 }),
          messageEntry({ role: "user", content: "x" }),
        ]);
        const found = await store.latestEvents("a__b", ["x", "y", "missing", "x"]);
        assert.deepEqual(found.map((e) => [e.id, e.payload.name]), [[2, "y"], [4, "x"]]);
        assert.deepEqual(await store.latestEvents("none__x", ["x"]), []);
      }));

    test("listTapes hides sidecar tapes and reset removes a tape from the list", () =>
      withStore(async (store) => {
        await store.append("a__b", messageEntry({ role: "user", content: "x" }));
        await store.append("a__b__spill", messageEntry({ role: "user", content: "x" }));
        await store.append("c__d", messageEntry({ role: "user", content: "x" }));
        assert.deepEqual(await store.listTapes(), ["a__b", "c__d"]);
        await store.reset("c__d");
        assert.deepEqual(await store.listTapes(), ["a__b"]);
      }));

    test("anchor lookups use the anchor indexes", () =>
      withStore(async (store, schema) => {
        await store.append("a__b", anchorEntry("x"));
        const plan = await withAdmin(url, async (sql) => {
          await sql.unsafe("SET enable_seqscan = off");
          const rows = await sql.unsafe(
            `EXPLAIN SELECT id FROM "${schema}".bub_tape_entries WHERE tape = 'a__b' AND anchor = 'x' ORDER BY id DESC LIMIT 1`,
          );
          return rows.map((r) => String(r["QUERY PLAN"])).join("\n");
        });
        assert.match(plan, /bub_tape_entries_anchor_name/);
      }));

    test("an unreachable server is a store_unavailable BubError naming the URL without the password", async () => {
      const store = new PostgresTapeStore("postgres://u:secret@127.0.0.1:1/db", {
        connectTimeoutSeconds: 2,
      });
      try {
        await assert.rejects(store.listTapes(), (error: unknown) => {
          assert.ok(BubError.isInstance(error), String(error));
          assert.equal(error.kind, "temporary");
          assert.equal(error.details?.reason, "store_unavailable");
          assert.match(
            error.message,
            /^Cannot list tapes: tape store postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db is unavailable \(connect ECONNREFUSED/,
          );
          assert.doesNotMatch(error.message, /secret/);
          return true;
        });
      } finally {
        await store.close();
      }
    });

    test("a closed store refuses operations; bad URLs and schemas are TypeErrors", async () => {
      const store = new PostgresTapeStore(url);
      await store.close();
      await assert.rejects(store.listTapes(), { kind: "invalid_input", message: /closed/ });
      assert.throws(() => new PostgresTapeStore("mysql://x"), TypeError);
      assert.throws(
        () => new PostgresTapeStore(url, { schema: "Bad-Name" }),
        /lower-case identifier/,
      );
    });
  });
}
