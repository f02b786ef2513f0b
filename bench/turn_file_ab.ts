/**
 * The fresh-session turn on the file tape of two checkouts side by side in one process (same mock
 * server, turns interleaved, order alternating), for a before/after that a loaded machine does not
 * skew: each checkout's Bub is imported from its own folder. For each checkout it also times a
 * memory-tape turn right after its file-tape turn and one right after a memory-tape turn: their
 * difference is what the file turn leaves running after it reports (work on the thread pool, the
 * kernel's share of a create), which a bench rotating variants turn by turn charges to the next
 * variant.
 *
 * Run: `BENCH_A=/path/to/other/checkout scripts/tool node bench/turn_file_ab.ts` (or with
 * `deno run -A` / `bun`). `BENCH_A` and `BENCH_B` are checkout folders with `node_modules`
 * (default: this checkout for both); `BENCH_N` timed rounds (default 300, after 100 warm-up).
 *
 * @module
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { TEXT } from "./_turn_raw.ts";
import { startServer } from "./_bench_process.ts";

type Turn = (i: number) => Promise<void>;

const HERE = join(new URL(".", import.meta.url).pathname, "..");
const CHECKOUTS: Record<string, string> = {
  A: process.env.BENCH_A ?? HERE,
  B: process.env.BENCH_B ?? HERE,
};
const N = Number(process.env.BENCH_N ?? 300);
const WARMUP = 100;

const { url, child } = await startServer(join(HERE, "bench/turn.bench.ts"));
const turns: Record<string, Turn> = {};
const closers: Array<() => Promise<void>> = [];
for (const [name, root] of Object.entries(CHECKOUTS)) {
  const { createBenchBub } = await import(join(root, "bench/_bench_bub.ts"));
  for (const memoryTape of [false, true]) {
    const { bub, home } = await createBenchBub(url, {
      prefix: "bub-turn-ab-",
      memoryTape,
      env: { BUB_MAX_TOKENS: "1024" },
    });
    const scope = await bub.running();
    turns[`${name} ${memoryTape ? "memory" : "file"}`] = async (i) => {
      const result = await bub.processInbound(
        { channel: "bench", chatId: `p-${i}`, content: `turn ${i}` },
        { stream: true },
      );
      if (result.modelOutput !== TEXT.join("")) throw new Error(`unexpected ${result.modelOutput}`);
    };
    closers.push(async () => {
      await scope[Symbol.asyncDispose]();
      rmSync(home, { recursive: true, force: true });
    });
  }
}

const samples: Record<string, number[]> = {};
const cpu: Record<string, number> = {};
async function timed(turn: string, row: string, i: number): Promise<void> {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  await turns[turn]!(i);
  (samples[row] ??= []).push(performance.now() - start);
  const used = process.cpuUsage(cpuStart);
  cpu[row] = (cpu[row] ?? 0) + (used.user + used.system) / 1000;
}

for (let i = 0; i < WARMUP; i++) for (const turn of Object.values(turns)) await turn(i);
for (let i = WARMUP; i < WARMUP + N; i++) {
  for (const name of i % 2 ? ["A", "B"] : ["B", "A"]) {
    await timed(`${name} memory`, `${name} memory, after a memory turn`, 2 * i);
    await timed(`${name} file`, `${name} file`, i);
    await timed(`${name} memory`, `${name} memory, after a file turn`, 2 * i + 1);
  }
}
for (const close of closers) await close();
child.stdin!.end();

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
console.log(`## ${runtime}, ${N} rounds; A = ${CHECKOUTS.A}, B = ${CHECKOUTS.B}\n`);
console.log("| turn | p50 ms | CPU ms/turn |\n|---|---|---|");
for (const [row, values] of Object.entries(samples).sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`| ${row} | ${median(values).toFixed(3)} | ${(cpu[row]! / N).toFixed(3)} |`);
}
