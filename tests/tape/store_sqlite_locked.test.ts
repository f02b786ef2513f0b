/**
 * "database is locked" under the SQLite store: a real second connection holds the write lock
 * (`BEGIN IMMEDIATE`). Without retries the append fails at once with an error naming the file and
 * SQLite's own reason (not a failed ROLLBACK), and the store stays usable; with `retrySeconds` the
 * append waits and lands, once, when the lock is released.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { BubError } from "../../src/kernel/errors.ts";
import { openSqlite } from "../../src/tape/sqlite/_driver.ts";
import { messageEntry } from "../../src/tape/entry.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import { captureLogs } from "../_helpers/log_capture.ts";
import { until, withDir } from "./_helpers.ts";

test("a locked SQLite database: the append fails naming the file and the lock; the store recovers", () =>
  withDir(async (dir) => {
    const path = join(dir, "tapes.db");
    await using store = new SqliteTapeStore(path, { busyTimeoutMs: 50 });
    await store.append("a__b", messageEntry({ role: "user", content: "one" }));
    const other = await openSqlite(path);
    try {
      other.exec("BEGIN IMMEDIATE");
      await assert.rejects(
        store.append("a__b", messageEntry({ role: "user", content: "two" })),
        (error: unknown) => {
          assert.ok(BubError.isInstance(error), String(error));
          assert.equal(error.kind, "temporary");
          assert.equal(error.details?.reason, "store_unavailable");
          assert.equal(error.details?.store, "sqlite");
          assert.match(
            error.message,
            /^Cannot append to tape "a__b": tape store ".*tapes\.db" is unavailable \(.*database is locked.*\)$/,
          );
          return true;
        },
      );
      other.exec("ROLLBACK");
    } finally {
      other.close();
    }
    await store.append("a__b", messageEntry({ role: "user", content: "three" }));
    const entries = await new TapeQuery("a__b", store).all();
    assert.deepEqual(entries.map((entry) => [entry.id, entry.payload.content]), [
      [1, "one"],
      [2, "three"],
    ]);
  }));

test("a locked SQLite database with retrySeconds: the append waits and lands once when released", () =>
  withDir(async (dir) => {
    const path = join(dir, "tapes.db");
    await using logs = await captureLogs();
    await using store = new SqliteTapeStore(path, { busyTimeoutMs: 50, retrySeconds: 60 });
    await store.append("a__b", messageEntry({ role: "user", content: "one" }));
    const other = await openSqlite(path);
    let pending: Promise<void>;
    try {
      other.exec("BEGIN IMMEDIATE");
      let settled = false;
      pending = store.append("a__b", messageEntry({ role: "user", content: "two" }))
        .finally(() => settled = true);
      pending.catch(() => {}); // awaited below
      await until(
        () => logs.warnings().some((line) => line.includes("unreachable")),
        "the retry warning",
        10_000,
      );
      assert.equal(settled, false, "the append waits while the lock is held");
      assert.match(
        logs.warnings().join("\n"),
        /tape store ".*tapes\.db" unreachable \(.*database is locked.*\); retrying for up to 60 s/,
      );
      other.exec("COMMIT");
    } finally {
      other.close();
    }
    await pending;
    const entries = await new TapeQuery("a__b", store).all();
    assert.deepEqual(entries.map((entry) => [entry.id, entry.payload.content]), [
      [1, "one"],
      [2, "two"],
    ]);
    assert.ok(logs.messages().some((line) => /tape store ".*tapes\.db" is back after/.test(line)));
  }));
