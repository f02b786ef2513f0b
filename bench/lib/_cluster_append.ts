/**
 * The append rows of the cluster bench (issue 14): tape append throughput, one entry per call and
 * turn-sized batches of 20, for PostgreSQL (plain and fenced by a lease, as a cluster instance
 * writes) beside the file store (fsync) and SQLite (FULL), plus 8 sessions appending at once.
 * Counts: `BENCH_SINGLE` (default 500) entries one per call, `BENCH_BATCHED` (4000) in batches.
 *
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { connectPg } from "../../src/tape/postgres/_client.ts";
import { messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import { appendAll, type TapeStore } from "../../src/tape/store.ts";

const SINGLE = Number(process.env.BENCH_SINGLE ?? 500);
const BATCHED = Number(process.env.BENCH_BATCHED ?? 4_000);

interface Subject {
  store: TapeStore;
  close(): Promise<void>;
}

function entry(i: number): TapeEntry {
  return messageEntry({
    role: i % 2 ? "assistant" : "user",
    content: `message ${i} ${"lorem ipsum ".repeat(8)}`,
  });
}

/** Entries per second appending `total` entries in calls of `batch` to each of `tapes`. */
async function rate(subject: Subject, batch: number, total: number, tapes = 1): Promise<number> {
  const start = performance.now();
  await Promise.all(
    Array.from({ length: tapes }, async (_, t) => {
      for (let i = 0; i < total / tapes; i += batch) {
        const entries = Array.from({ length: batch }, (_, k) => entry(i + k));
        if (batch === 1) await subject.store.append(`s${t}__b`, entries[0]!);
        else await appendAll(subject.store, `s${t}__b`, entries);
      }
    }),
  );
  return total / ((performance.now() - start) / 1000);
}

const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 0 });

/** Prints the append throughput table of the stores, PostgreSQL at `url`, on `runtime`. */
export async function appendTable(url: string, runtime: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "bub-cluster-bench-"));
  const schema = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = await connectPg(url, { max: 1 });
  const fsync = String((await admin.unsafe("SHOW fsync"))[0]?.fsync);
  let n = 0;
  const makers: [string, () => Promise<Subject>][] = [
    ["file (fsync)", () => {
      const store = new FileTapeStore(join(dir, `f${n++}`));
      return Promise.resolve({ store, close: () => store.close() });
    }],
    ["sqlite (FULL)", () => {
      const store = new SqliteTapeStore(join(dir, `s${n++}.db`));
      return Promise.resolve({ store, close: () => store.close() });
    }],
    ["postgres", async () => {
      const store = new PostgresTapeStore(url, { schema: `${schema}_${n++}` });
      await store.listTapes();
      return { store, close: () => store.close() };
    }],
    ["postgres, fenced by a lease", async () => {
      const store = new PostgresTapeStore(url, { schema: `${schema}_${n++}` });
      const lease = await store.acquireLease("bench", "instance-1", 600_000);
      return { store: store.fenced(lease!), close: () => store.close() };
    }],
  ];
  try {
    console.log(`\nTape append throughput on ${runtime} (PostgreSQL fsync=${fsync})\n`);
    console.log(
      "| store | append 1/call (entries/s) | batch of 20 (entries/s) | 8 sessions at once, 1/call (entries/s) |",
    );
    console.log("|---|---:|---:|---:|");
    for (const [label, make] of makers) {
      const cells: string[] = [];
      for (const [batch, total, tapes] of [[1, SINGLE, 1], [20, BATCHED, 1], [1, SINGLE * 2, 8]]) {
        const subject = await make();
        try {
          cells.push(fmt(await rate(subject, batch!, total!, tapes)));
        } finally {
          await subject.close();
        }
      }
      console.log(`| ${label} | ${cells.join(" | ")} |`);
    }
  } finally {
    for (let i = 0; i < n; i++) {
      await admin.unsafe(`DROP SCHEMA IF EXISTS "${schema}_${i}" CASCADE`);
    }
    await admin.end({ timeout: 5 });
    await rm(dir, { recursive: true, force: true });
  }
}
