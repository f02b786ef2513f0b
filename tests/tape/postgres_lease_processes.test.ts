import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { dropSchema, postgresUrl, uniqueSchema } from "./_postgres.ts";

const WORKER = fileURLToPath(new URL("./_lease_worker.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TTL_MS = 1_000;
const url = postgresUrl("PostgreSQL leases across processes");

interface Worker {
  owner: string;
  child: ChildProcess;
  /** `n` of every append the worker reported committed. */
  committed: number[];
  /** When each `lease <epoch>` line arrived. */
  leases: { epoch: number; at: number }[];
  /** Appends since the last `lease` line. */
  sinceLease: number;
  stderr: () => string;
}

function startWorker(schema: string, owner: string): Worker {
  const args = "Deno" in globalThis ? ["run", "-A", WORKER] : [WORKER];
  const child = spawn(process.execPath, [...args, url!, schema, owner, String(TTL_MS)], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const worker: Worker = {
    owner,
    child,
    committed: [],
    leases: [],
    sinceLease: 0,
    stderr: () => stderr,
  };
  let buffer = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop()!;
    for (const line of lines) {
      const [word, value] = line.split(" ");
      if (word === "ok") worker.committed.push(Number(value)), worker.sinceLease++;
      if (word === "lease") {
        worker.leases.push({ epoch: Number(value), at: Date.now() });
        worker.sinceLease = 0;
      }
    }
  });
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  return worker;
}

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function kill(worker: Worker): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.child.once("exit", resolve));
  worker.child.kill("SIGKILL");
  await exited;
}

if (url) {
  test("three processes share a session through leases; kill -9 of the owner: takeover within lease + 1 s, fenced tape stays ordered and gapless", async () => {
    const schema = uniqueSchema();
    const store = new PostgresTapeStore(url, { schema });
    await store.listTapes(); // creates the schema before the workers race for it
    const workers = ["A", "B", "C"].map((owner) => startWorker(schema, owner));
    const total = () => workers.reduce((sum, w) => sum + w.committed.length, 0);
    try {
      await until("60 appends", () => total() >= 60);
      // Kill the worker holding the lease (the latest `lease` line) in the middle of its run.
      const current = () =>
        workers.reduce((a, b) =>
          (a.leases.at(-1)?.epoch ?? 0) > (b.leases.at(-1)?.epoch ?? 0) ? a : b
        );
      await until("an owner mid-run", () => {
        const w = current();
        return w.sinceLease >= 3 && w.sinceLease <= 10;
      });
      const holder = current();
      const lastEpoch = holder.leases.at(-1)!.epoch;
      const killedAt = Date.now();
      await kill(holder);
      const others = workers.filter((w) => w !== holder);
      await until(
        "a takeover",
        () => others.some((w) => w.leases.some((l) => l.epoch > lastEpoch)),
      );
      const takeover = Math.min(
        ...others.flatMap((w) => w.leases.filter((l) => l.epoch > lastEpoch).map((l) => l.at)),
      ) - killedAt;
      assert.ok(takeover >= TTL_MS / 2, `takeover after ${takeover} ms: the lease was not held`);
      assert.ok(takeover <= TTL_MS + 1_000, `takeover after ${takeover} ms`);
      if (process.env.BUB_TEST_REPORT) console.log(`takeover ${takeover} ms`);
      const before = total();
      await until("40 more appends", () => total() >= before + 40);
      for (const worker of workers) await kill(worker);

      const entries = await new TapeQuery("a__b", store).all();
      assert.deepEqual(entries.map((e) => e.id), entries.map((_, i) => i + 1), "gapless ids");
      // Epochs never go back: each epoch's entries are one run by one owner.
      let epoch = 0;
      const ownerOf = new Map<number, unknown>();
      for (const entry of entries) {
        const e = Number(entry.meta.epoch);
        assert.ok(e >= epoch, `epoch ${e} after ${epoch} at id ${entry.id}`);
        epoch = e;
        if (ownerOf.has(e)) assert.equal(ownerOf.get(e), entry.meta.owner, `epoch ${e} owner`);
        ownerOf.set(e, entry.meta.owner);
      }
      // Every append a worker reported committed is on the tape.
      for (const worker of workers) {
        const stored = new Set(
          entries.filter((e) => e.meta.owner === worker.owner).map((e) => Number(e.meta.n)),
        );
        for (const n of worker.committed) {
          assert.ok(stored.has(n), `${worker.owner} ${n} reported but not stored`);
        }
      }
      assert.ok(ownerOf.size >= 3, `${ownerOf.size} epochs`);
    } catch (error) {
      for (const worker of workers) {
        if (worker.stderr()) console.error(`${worker.owner}: ${worker.stderr()}`);
      }
      throw error;
    } finally {
      for (const worker of workers) await kill(worker);
      await store.close();
      await dropSchema(url, schema);
    }
  });
}
