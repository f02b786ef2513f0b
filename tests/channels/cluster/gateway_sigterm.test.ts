/**
 * SIGTERM stops a cluster `bub gateway` cleanly on every runtime: a real gateway (Deno, Node 24,
 * Bun in turn) over PostgreSQL, the fake Bot API and the mock model answers a chat (so it holds
 * that session's lease), gets SIGTERM, exits 0 with no error on stderr, and its lease is released
 * at once: another owner takes the session right away, long before the lease (60 s) would expire.
 *
 * The signal is sent with `process.kill(pid)`: under `deno test`, node:child_process's
 * `ChildProcess.kill()` reports the child as killed by the signal (exit code null) whatever it
 * exited with, which looked like a Deno cluster gateway dying on SIGTERM; it exits 0.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { connectPg } from "../../../src/tape/postgres/_client.ts";
import { PostgresTapeStore } from "../../../src/tape/postgres_store.ts";
import { FakeTelegramServer } from "../../../src/testing/fake_telegram.ts";
import { mockReply } from "../../../src/testing/_mock_reply.ts";
import { MockLlmServer } from "../../../src/testing/mock_llm_server.ts";
import { tempDirs } from "../../cli/_spawn.ts";
import { postgresUrl } from "../../tape/_postgres.ts";
import {
  freshDatabase,
  liveLeases,
  runtimeBinary,
  RUNTIMES,
  startInstance,
} from "../../e2e/_cluster_harness.ts";

const url = postgresUrl("cluster gateway SIGTERM");

for (const runtime of RUNTIMES) {
  if (!url || runtimeBinary(runtime) === null) continue;
  test(
    `${runtime}: SIGTERM stops a cluster gateway holding a lease: exit 0, lease released at once`,
    {
      timeout: 90_000,
    },
    async (t) => {
      const db = await freshDatabase(url);
      t.after(() => db.drop());
      await using store = new PostgresTapeStore(db.url);
      await store.listTapes(); // the tables exist before the gateway starts
      const sql = await connectPg(db.url, { max: 1 });
      t.after(() => sql.end({ timeout: 5 }));
      const telegram = await FakeTelegramServer.start();
      t.after(() => telegram.close());
      const llm = await MockLlmServer.start({ script: () => mockReply.text("hello back") });
      t.after(() => llm.close());
      const dirs = tempDirs("bub-cluster-sigterm-");
      t.after(() => dirs.remove());
      const instance = await startInstance(runtime, dirs, {
        BUB_TAPE_STORE: db.url,
        BUB_CLUSTER_LEASE_SECONDS: "60",
        BUB_CLUSTER_POLL_SECONDS: "0.2",
        BUB_MODEL: "custom:x",
        BUB_API_BASE: llm.url,
        BUB_API_KEY: "sk-cluster",
        BUB_TELEGRAM_TOKEN: telegram.token,
        BUB_TELEGRAM_API_ROOT: telegram.apiRoot,
        BUB_TELEGRAM_ALLOW_USERS: "1001",
        BUB_DEBOUNCE_SECONDS: "0.05",
        BUB_MAX_WAIT_SECONDS: "0.5",
      });
      const { child } = instance;
      t.after(async () => {
        if (child.process.exitCode === null && child.process.signalCode === null) child.kill();
        await child.exited(10_000).catch(() => {});
      });
      telegram.pushText("hello");
      let held: string[] = [];
      for (let i = 0; i < 600 && held.length === 0; i++) {
        await sleep(50);
        held = (await liveLeases(sql)).get(instance.owner) ?? [];
      }
      assert.ok(
        held.length > 0,
        `the gateway holds the chat's session lease; stderr:\n${child.stderr}`,
      );

      process.kill(child.process.pid!, "SIGTERM");
      const code = await child.exited(30_000);
      assert.deepEqual(
        [code, child.process.signalCode],
        [0, null],
        `exit after SIGTERM; stderr:\n${child.stderr}`,
      );
      assert.doesNotMatch(child.stderr, /error|uncaught/i);
      assert.equal((await liveLeases(sql)).size, 0, "no live lease is left");
      for (const key of held) {
        assert.ok(await store.acquireLease(key, "next-instance", 60_000), `${key} taken at once`);
      }
    },
  );
}
