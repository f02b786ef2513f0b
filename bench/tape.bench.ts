/**
 * Tape benchmark: append throughput (single and turn-sized batches) and `readMessages()` time
 * for tapes whose last anchor is 50 entries from the end, for the memory, file and SQLite
 * stores. Run: `scripts/tool deno run -A bench/tape.bench.ts` (or with node / bun).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anchorEntry, messageEntry, type TapeEntry } from "../src/tape/entry.ts";
import { FileTapeStore } from "../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../src/tape/memory_store.ts";
import { TapeQuery } from "../src/tape/query.ts";
import { SqliteTapeStore } from "../src/tape/sqlite_store.ts";
import { appendAll, type TapeStore } from "../src/tape/store.ts";
import { Tape } from "../src/tape/tape.ts";

type Closable = TapeStore & { close(): Promise<void> };
const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
const dir = await mkdtemp(join(tmpdir(), "bub-tape-bench-"));
const makers: [string, (name: string) => Closable][] = [
  ["memory", () => new InMemoryTapeStore()],
  ["file (fsync)", (name) => new FileTapeStore(join(dir, name))],
  ["file (no fsync)", (name) => new FileTapeStore(join(dir, name), { durable: false })],
  ["sqlite (FULL)", (name) => new SqliteTapeStore(join(dir, `${name}.db`))],
  ["sqlite (NORMAL)", (name) => new SqliteTapeStore(join(dir, `${name}.db`), { durable: false })],
];

function entry(i: number): TapeEntry {
  return messageEntry({
    role: i % 2 ? "assistant" : "user",
    content: `message ${i} ${"lorem ipsum ".repeat(8)}`,
  });
}

async function appendRate(
  make: (n: string) => Closable,
  label: string,
  batch: number,
  total: number,
): Promise<number> {
  const store = make(`append-${label.replace(/\W/g, "")}-${batch}`);
  const start = performance.now();
  for (let i = 0; i < total; i += batch) {
    const entries = Array.from({ length: batch }, (_, k) => entry(i + k));
    if (batch === 1) await store.append("a__b", entries[0]!);
    else await appendAll(store, "a__b", entries);
  }
  const rate = total / ((performance.now() - start) / 1000);
  await store.close();
  return rate;
}

async function readTime(
  make: (n: string) => Closable,
  label: string,
  size: number,
): Promise<[number, number]> {
  const name = `read-${label.replace(/\W/g, "")}-${size}`;
  const writer = make(name);
  const chunk = 1_000;
  for (let i = 0; i < size; i += chunk) {
    const entries = Array.from({ length: Math.min(chunk, size - i) }, (_, k) => {
      const at = i + k;
      return at === size - 51 ? anchorEntry("handoff", { summary: "s" }) : entry(at);
    });
    await appendAll(writer, "a__b", entries);
  }
  const reopen = label !== "memory";
  if (reopen) await writer.close();
  const store = reopen ? make(name) : writer;
  const tape = new Tape({ store }).scoped("a__b");
  let t = performance.now();
  const first = await tape.readMessages();
  const cold = performance.now() - t;
  if (first.length !== 50) throw new Error(`expected 50 messages, got ${first.length}`);
  const times: number[] = [];
  for (let r = 0; r < 31; r++) {
    t = performance.now();
    await tape.readMessages();
    times.push(performance.now() - t);
  }
  const warm = times.sort((a, b) => a - b)[15]!;
  await store.close();
  return [cold, warm];
}

/** Cold file-store costs (ms, each on a new store): anchor queries, a full read, a first append. */
async function fileColdTimes(size: number): Promise<number[]> {
  const name = `cold-${size}`;
  const make = (durable = true) => new FileTapeStore(join(dir, name), { durable });
  const writer = make();
  for (let i = 0; i < size; i += 1_000) {
    const entries = Array.from({ length: Math.min(1_000, size - i) }, (_, k) => {
      const at = i + k;
      return at === size - 51 ? anchorEntry("handoff", { summary: "s" }) : entry(at);
    });
    await appendAll(writer, "a__b", entries);
  }
  await writer.close();
  const cases: ((store: FileTapeStore) => Promise<unknown>)[] = [
    (store) => new TapeQuery("a__b", store).lastAnchor().all(),
    (store) => new TapeQuery("a__b", store).afterAnchor("handoff").all(),
    (store) => new TapeQuery("a__b", store).all(),
    (store) => store.append("a__b", entry(size)),
  ];
  const out: number[] = [];
  for (const [i, run] of cases.entries()) {
    // The append skips the flush: the first fsync of a freshly written file measures the disk.
    const store = make(i < cases.length - 1);
    const t = performance.now();
    await run(store);
    out.push(performance.now() - t);
    await store.close();
  }
  return out;
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
try {
  console.log(`\n@bub/core tape benchmark on ${runtime}\n`);
  console.log("| store | append 1/call (entries/s) | append batch of 20 (entries/s) |");
  console.log("|---|---:|---:|");
  for (const [label, make] of makers) {
    const single = await appendRate(make, label, 1, label === "memory" ? 20_000 : 500);
    const batched = await appendRate(make, label, 20, label === "memory" ? 20_000 : 4_000);
    console.log(`| ${label} | ${fmt(single)} | ${fmt(batched)} |`);
  }
  console.log(
    "\nreadMessages() with the last anchor 50 entries from the end (ms; cold = first read by a new store, warm = median of 31 later reads)\n",
  );
  console.log("| store | 1 k cold | 1 k warm | 10 k cold | 10 k warm | 100 k cold | 100 k warm |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (
    const [label, make] of makers.filter(([l]) => !l.includes("no fsync") && !l.includes("NORMAL"))
  ) {
    const cells: string[] = [];
    for (const size of [1_000, 10_000, 100_000]) {
      const [cold, warm] = await readTime(make, label, size);
      cells.push(fmt(cold, 2), fmt(warm, 3));
    }
    console.log(`| ${label} | ${cells.join(" | ")} |`);
  }
  console.log(
    "\nfile store, cold (ms, each on a new store; the anchor is 50 entries from the end)\n",
  );
  console.log("| entries | lastAnchor() | afterAnchor(name) | all() | first append (no fsync) |");
  console.log("|---|---:|---:|---:|---:|");
  for (const size of [1_000, 10_000, 100_000]) {
    const cells = (await fileColdTimes(size)).map((ms) => fmt(ms, 2));
    console.log(`| ${fmt(size)} | ${cells.join(" | ")} |`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
