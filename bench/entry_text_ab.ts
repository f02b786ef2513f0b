/**
 * CPU of serialising one turn-sized batch (the `file_append_ab.ts` batch: 14 entries, ~6.5 KB)
 * into stored copies and JSONL lines, as a turn on the file tape does (`storedEntry` into the fork's
 * buffer with the text kept, again for the file store's prepared batch, then renumbered as a
 * session's next turn is), in two checkouts side by side in one process: rounds interleaved, order
 * alternating. Prints the median µs per batch of each checkout over the rounds.
 *
 * Run: `BENCH_A=/path/to/other/checkout /work/bin/tool node bench/entry_text_ab.ts` (or
 * `deno run -A` / `bun`). `BENCH_A` and `BENCH_B` are checkout folders (default: this checkout
 * for both); `BENCH_ROUNDS` rounds (default 15) of `BENCH_N` batches (default 2000).
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { turnBatch } from "./_turn_batch.ts";

type Stored = (
  tape: string,
  entry: unknown,
  id: number,
  keep?: boolean,
) => { copy: unknown; line: string };

const HERE = join(new URL(".", import.meta.url).pathname, "..");
const CHECKOUTS: Record<string, string> = {
  A: process.env.BENCH_A ?? HERE,
  B: process.env.BENCH_B ?? HERE,
};
const N = Number(process.env.BENCH_N ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);

const runs: Record<string, (i: number) => number> = {};
for (const [name, root] of Object.entries(CHECKOUTS)) {
  const { storedEntry } = await import(join(root, "src/tape/_entry_text.ts"));
  const entry = await import(join(root, "src/tape/entry.ts"));
  const stored = storedEntry as Stored;
  runs[name] = (i) => {
    let bytes = 0;
    // The fork's buffer, the file store's prepared batch, the batch written after 100 entries.
    const local = turnBatch(entry, i).map((e, k) => stored("ab__tape", e, k + 1, true));
    const prepared = local.map((e, k) => stored("ab__tape", e.copy, k + 1, true));
    let id = 100;
    for (const p of prepared) bytes += stored("ab__tape", p.copy, ++id).line.length;
    return bytes;
  };
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

const samples: Record<string, number[]> = { A: [], B: [] };
let sink = 0;
for (let round = -2; round < ROUNDS; round++) {
  for (const name of round % 2 ? ["A", "B"] : ["B", "A"]) {
    const start = cpuMicros();
    for (let i = 0; i < N; i++) sink += runs[name]!(i);
    if (round >= 0) samples[name]!.push((cpuMicros() - start) / N);
  }
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
for (const name of ["A", "B"]) {
  console.log(`${name} ${CHECKOUTS[name]}: ${median(samples[name]!).toFixed(1)} µs CPU/batch`);
}
if (sink === 0) console.log("no bytes");
