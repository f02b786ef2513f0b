/**
 * A PostgreSQL outage under the tape store (a real server stopped and started again): operations
 * wait with backoff and complete once it is back, each append stored exactly once; past
 * `retrySeconds` they fail with an error naming the store's URL without its password; closing
 * the store ends the wait.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { BubError } from "../../src/kernel/errors.ts";
import { appendColumns, pgAppend, pgBatchLanded } from "../../src/tape/postgres/_append.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { pgStoreInternals, PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { until } from "./_helpers.ts";
import { startOwnPgServer } from "./_pg_server.ts";
import { postgresUrl, uniqueSchema } from "./_postgres.ts";

const available = postgresUrl("tape store outage");

function said(content: string) {
  return messageEntry({ role: "user", content });
}

async function contentsOf(store: PostgresTapeStore, tape: string): Promise<[number, unknown][]> {
  const entries = await new TapeQuery(tape, store).all();
  return entries.map((entry) => [entry.id, entry.payload.content]);
}

if (available) {
  test("PostgreSQL stopped: appends and reads wait, warn once naming the URL, and land once it is back", async () => {
    await using server = await startOwnPgServer();
    await using logs = await captureLogs();
    await using store = new PostgresTapeStore(server.urlWithPassword, {
      schema: uniqueSchema(),
      retrySeconds: 120,
      connectTimeoutSeconds: 2,
    });
    await store.append("a__b", said("before"));
    await server.stop();
    let settled = 0;
    const append = store.append("a__b", said("during")).finally(() => settled++);
    const read = store.latestEvents("a__b", ["x"]).finally(() => settled++);
    append.catch(() => {});
    read.catch(() => {});
    await until(
      () => logs.warnings().some((line) => line.includes("unreachable")),
      "the outage warning",
    );
    const warning = logs.warnings().find((line) => line.includes("unreachable"))!;
    assert.match(
      warning,
      /^tape store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres unreachable \(.*ECONNREFUSED.*\); retrying for up to 120 s$/,
    );
    assert.doesNotMatch(logs.messages().join("\n"), /s3cret-pw/);
    assert.equal(settled, 0, "nothing settles while the server is down");
    await server.start();
    await append;
    assert.deepEqual(await read, []);
    assert.deepEqual(await contentsOf(store, "a__b"), [[1, "before"], [2, "during"]]);
    assert.equal(logs.warnings().filter((line) => line.includes("unreachable")).length, 1);
    assert.ok(logs.messages().some((line) => / is back after /.test(line)));
  });

  test("PostgreSQL down past retrySeconds: a store_unavailable error naming the URL without the password", async () => {
    await using server = await startOwnPgServer();
    await using store = new PostgresTapeStore(server.urlWithPassword, {
      schema: uniqueSchema(),
      retrySeconds: 1,
      connectTimeoutSeconds: 2,
    });
    await store.append("a__b", said("before"));
    await server.stop();
    await assert.rejects(store.append("a__b", said("lost?")), (error: unknown) => {
      assert.ok(BubError.isInstance(error), String(error));
      assert.equal(error.kind, "temporary");
      assert.equal(error.details?.reason, "store_unavailable");
      assert.equal(error.details?.store, "postgres");
      assert.match(
        error.message,
        /^Cannot append to tape "a__b": tape store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres is unavailable \(.*ECONNREFUSED.*\); gave up after retrying for 1 s \(tape_store_retry_seconds\)$/,
      );
      assert.doesNotMatch(error.message, /s3cret-pw/);
      assert.ok(error.cause, "the driver's error is the cause");
      return true;
    });
    await server.start();
    // Nothing half-written: the failed append stored nothing, the next one gets id 2.
    await store.append("a__b", said("after"));
    assert.deepEqual(await contentsOf(store, "a__b"), [[1, "before"], [2, "after"]]);
  });

  test("closing the store ends an append waiting for PostgreSQL", async () => {
    await using server = await startOwnPgServer();
    const store = new PostgresTapeStore(server.url, {
      schema: uniqueSchema(),
      retrySeconds: 120,
      connectTimeoutSeconds: 2,
    });
    try {
      await store.append("a__b", said("before"));
      await server.stop();
      const append = store.append("a__b", said("during"));
      append.catch(() => {});
      // Let it fail once and wait.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await store.close();
      await assert.rejects(append, (error: unknown) => {
        assert.ok(BubError.isInstance(error), String(error));
        assert.equal(error.details?.reason, "store_unavailable");
        assert.match(error.message, /the store is closing$/);
        return true;
      });
    } finally {
      await store.close();
    }
  });

  test("a query error (not an outage) fails at once, with no retry and no warning", async () => {
    await using server = await startOwnPgServer();
    await using logs = await captureLogs();
    const schema = uniqueSchema();
    await using store = new PostgresTapeStore(server.url, { schema, retrySeconds: 600 });
    await store.append("a__b", said("one"));
    await assert.rejects(new TapeQuery("a__b", store).afterAnchor("missing").all(), {
      kind: "not_found",
    });
    const { open } = pgStoreInternals(store);
    await (await open()).unsafe(`DROP TABLE "${schema}".bub_tape_entries`);
    await assert.rejects(store.append("a__b", said("two")), (error: unknown) => {
      assert.equal((error as { code?: string }).code, "42P01"); // undefined_table, as is
      return true;
    });
    assert.deepEqual(logs.warnings(), []);
  });

  test("a batch sent again after it committed (its answer lost) is not stored twice", async () => {
    await using server = await startOwnPgServer();
    await using store = new PostgresTapeStore(server.url, { schema: uniqueSchema() });
    await store.append("a__b", said("one"));
    const { open, tables } = pgStoreInternals(store);
    const sql = await open();
    const columns = appendColumns("a__b", [said("two"), said("three")]);
    const batch = crypto.randomUUID();
    assert.equal(await pgBatchLanded(sql, tables, "a__b", batch), false);
    assert.equal(await pgAppend(sql, tables, "a__b", columns, { batch }), 2);
    // The retry of the same batch: nothing inserted, and the store can tell it landed.
    assert.equal(await pgAppend(sql, tables, "a__b", columns, { batch }), 0);
    assert.equal(await pgBatchLanded(sql, tables, "a__b", batch), true);
    await store.append("a__b", said("four"));
    assert.deepEqual(await contentsOf(store, "a__b"), [
      [1, "one"],
      [2, "two"],
      [3, "three"],
      [4, "four"],
    ]);
  });
}
