/**
 * Turns of a gateway with many live sessions, on the file tape, in two checkouts side by side in
 * one process: `BENCH_CHATS` chats (default 200) take turns in rotation, so each turn's tape was
 * last used `BENCH_CHATS` turns ago and has 1 to `BENCH_PASSES` prior turns. A store whose caches
 * cannot hold every live tape reads and parses the tape again on each turn. Turns of the two
 * checkouts are interleaved (order alternating) so a loaded machine skews both alike; each
 * checkout's Bub is imported from its own folder. Prints the p50 wall time and the CPU ms per
 * turn of the passes after the first (the first creates the tapes).
 *
 * Run: `BENCH_A=/path/to/other/checkout /work/bin/tool node bench/turn_rotate_ab.ts` (or with
 * `deno run -A` / `bun`). `BENCH_A` and `BENCH_B` are checkout folders with `node_modules`
 * (default: this checkout for both); `BENCH_PASSES` rounds over the chats (default 5).
 *
 * @module
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { TEXT } from "./_turn_raw.ts";
import { startServer } from "./_bench_process.ts";

type Turn = (chat: number) => Promise<void>;

const HERE = join(new URL(".", import.meta.url).pathname, "..");
const CHECKOUTS: Record<string, string> = {
  A: process.env.BENCH_A ?? HERE,
  B: process.env.BENCH_B ?? HERE,
};
const CHATS = Number(process.env.BENCH_CHATS ?? 200);
const PASSES = Number(process.env.BENCH_PASSES ?? 5);

const { url, child } = await startServer(join(HERE, "bench/turn.bench.ts"));
const turns: Record<string, Turn> = {};
const closers: Array<() => Promise<void>> = [];
for (const [name, root] of Object.entries(CHECKOUTS)) {
  const { createBenchBub } = await import(join(root, "bench/_bench_bub.ts"));
  const { bub, home } = await createBenchBub(url, {
    prefix: "bub-turn-rotate-",
    env: { BUB_MAX_TOKENS: "1024" },
  });
  const scope = await bub.running();
  turns[name] = async (chat) => {
    const result = await bub.processInbound(
      { channel: "bench", chatId: `r-${chat}`, content: `turn in ${chat}` },
      { stream: true },
    );
    if (result.modelOutput !== TEXT.join("")) throw new Error(`unexpected ${result.modelOutput}`);
  };
  closers.push(async () => {
    await scope[Symbol.asyncDispose]();
    rmSync(home, { recursive: true, force: true });
  });
}

const samples: Record<string, number[]> = {};
const cpu: Record<string, number> = {};
for (let pass = 0; pass < PASSES; pass++) {
  for (let chat = 0; chat < CHATS; chat++) {
    for (const name of chat % 2 ? ["A", "B"] : ["B", "A"]) {
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      await turns[name]!(chat);
      if (pass === 0) continue;
      (samples[name] ??= []).push(performance.now() - start);
      const used = process.cpuUsage(cpuStart);
      cpu[name] = (cpu[name] ?? 0) + (used.user + used.system) / 1000;
    }
  }
}
for (const close of closers) await close();
child.stdin!.end();

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
console.log(
  `## ${runtime}, ${CHATS} chats × ${PASSES} passes; A = ${CHECKOUTS.A}, B = ${CHECKOUTS.B}\n`,
);
console.log("| turn | p50 ms | CPU ms/turn |\n|---|---|---|");
for (const [name, values] of Object.entries(samples).sort(([a], [b]) => a.localeCompare(b))) {
  console.log(
    `| ${name} | ${median(values).toFixed(3)} | ${(cpu[name]! / values.length).toFixed(3)} |`,
  );
}
