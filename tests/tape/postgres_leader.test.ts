import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import process from "node:process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { PostgresLeader } from "../../src/tape/postgres_leader.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { dropSchema, postgresUrl, uniqueSchema, withAdmin } from "./_postgres.ts";

const WORKER = fileURLToPath(new URL("./_leader_worker.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const url = postgresUrl("PostgresLeader");

async function withStores(
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

if (url) {
  describe("PostgresLeader", () => {
    test("one leader per name; resigning or disposing hands it over", () =>
      withStores(async (a, b, schema) => {
        await using first = new PostgresLeader(a, "poller");
        await using second = new PostgresLeader(b, "poller");
        await using other = new PostgresLeader(b, "other");
        assert.equal(await first.tryLead(), true);
        assert.equal(await first.tryLead(), true, "idempotent while leading");
        assert.equal(await second.tryLead(), false);
        assert.equal(await other.tryLead(), true, "names are independent");
        assert.equal(await first.stillLeading(), true);
        await first.resign();
        assert.equal(first.leading, false);
        assert.equal(await second.tryLead(), true);
        await second[Symbol.asyncDispose]();
        assert.equal(await first.tryLead(), true, "a disposed leader's lock is gone");
        // The same name in another schema is another election.
        const elsewhere = new PostgresTapeStore(url, { schema: `${schema}_x` });
        try {
          await using there = new PostgresLeader(elsewhere, "poller");
          assert.equal(await there.tryLead(), true);
        } finally {
          await elsewhere.close();
          await dropSchema(url, `${schema}_x`);
        }
      }));

    test("a leader whose connection is terminated learns it from stillLeading", () =>
      withStores(async (a, b) => {
        await using leader = new PostgresLeader(a, "poller");
        assert.equal(await leader.tryLead(), true);
        await withAdmin(url, (sql) =>
          sql.unsafe(
            `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted
            AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`,
            [`bub_leader:${a.schema}:poller`],
          ));
        assert.equal(await leader.stillLeading(), false);
        assert.equal(leader.leading, false);
        await using next = new PostgresLeader(b, "poller");
        assert.equal(await next.tryLead(), true);
      }));

    test("kill -9 of the leading process: another takes over within 1 s", () =>
      withStores(async (a) => {
        await a.listTapes();
        const args = "Deno" in globalThis ? ["run", "-A", WORKER] : [WORKER];
        const child = spawn(process.execPath, [...args, url, a.schema], {
          cwd: ROOT,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let stderr = "";
        child.stderr!.on("data", (chunk) => (stderr += chunk));
        try {
          await new Promise<void>((resolve, reject) => {
            child.stdout!.on("data", (chunk) => String(chunk).includes("leading") && resolve());
            child.on("exit", () => reject(new Error(`worker exited: ${stderr}`)));
          });
          await using candidate = new PostgresLeader(a, "poller");
          assert.equal(await candidate.tryLead(), false);
          const exited = new Promise((resolve) => child.once("exit", resolve));
          const killedAt = Date.now();
          child.kill("SIGKILL");
          await exited;
          while (!await candidate.tryLead()) {
            assert.ok(Date.now() - killedAt < 5_000, "no takeover within 5 s");
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          const took = Date.now() - killedAt;
          if (process.env.BUB_TEST_REPORT) console.log(`leader takeover ${took} ms`);
          assert.ok(took < 1_000, `takeover after ${took} ms`);
          await candidate.resign();
        } finally {
          child.kill("SIGKILL");
        }
      }));
  });
}
