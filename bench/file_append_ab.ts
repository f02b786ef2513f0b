/**
 * The file store's append of one turn-sized batch (14 entries, ~6.5 KB, durable) in two checkouts
 * side by side in one process: appends interleaved, order alternating, each checkout's store
 * imported from its own folder, so a loaded machine skews both alike. Two cases: a new tape per
 * append (a fresh session's turn) and the same tape again (a session's next turn). A 1 ms pause
 * between appends stands for the rest of a turn (the spare file is made then). Prints the p50 and
 * p90 of the append's wall time (`appendMany` called → resolved) per checkout and case.
 *
 * Run: `BENCH_A=/path/to/other/checkout /work/bin/tool node bench/file_append_ab.ts` (or
 * `deno run -A` / `bun`). `BENCH_A` and `BENCH_B` are checkout folders (default: this checkout
 * for both); `BENCH_N` timed rounds (default 400, after 50 warm-up).
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import { turnBatch } from "./_turn_batch.ts";

interface Store {
  appendMany(tape: string, entries: readonly unknown[]): Promise<void>;
  close(): Promise<void>;
}

const HERE = join(new URL(".", import.meta.url).pathname, "..");
const CHECKOUTS: Record<string, string> = {
  A: process.env.BENCH_A ?? HERE,
  B: process.env.BENCH_B ?? HERE,
};
const N = Number(process.env.BENCH_N ?? 400);
const WARMUP = 50;
const CASES = ["new tape", "same tape"] as const;

const dirs: string[] = [];
const appends: Record<string, (i: number, kase: string) => Promise<void>> = {};
const stores: Store[] = [];
for (const [name, root] of Object.entries(CHECKOUTS)) {
  const { FileTapeStore } = await import(join(root, "src/tape/file_store.ts"));
  const entry = await import(join(root, "src/tape/entry.ts"));
  const dir = mkdtempSync(join(tmpdir(), `bub-append-ab-${name}-`));
  dirs.push(dir);
  const store: Store = new FileTapeStore(dir);
  stores.push(store);
  appends[name] = (i, kase) =>
    store.appendMany(kase === "new tape" ? `ab__new${i}` : "ab__same", turnBatch(entry, i));
}

const samples: Record<string, number[]> = {};
for (let i = 0; i < WARMUP + N; i++) {
  for (const kase of CASES) {
    for (const name of i % 2 ? ["A", "B"] : ["B", "A"]) {
      await sleep(1);
      const start = performance.now();
      await appends[name]!(i, kase);
      if (i >= WARMUP) (samples[`${name} ${kase}`] ??= []).push(performance.now() - start);
    }
  }
}
for (const store of stores) await store.close();
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
console.log(`## ${runtime}, ${N} rounds; A = ${CHECKOUTS.A}, B = ${CHECKOUTS.B}\n`);
console.log("| append | p50 ms | p90 ms |\n|---|---|---|");
for (const [row, xs] of Object.entries(samples).sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`| ${row} | ${quantile(xs, 0.5).toFixed(3)} | ${quantile(xs, 0.9).toFixed(3)} |`);
}
