/**
 * Bub's CPU per fresh-session turn in two checkouts side by side in one process, against the mock
 * server in its own process (the `turn_cpu.ts` turn): each checkout's bench Bub, warmed up, then
 * rounds alternating between them (order flipping each round). Prints the median CPU ms per turn
 * of each and the median of the per-round differences B − A. The turns wait on the network, so
 * work done once per turn runs with cold caches, as in a real turn; with `BENCH_NETWORK=0` every
 * call is answered in memory from one real turn's recorded chunks (the `turn_inproc.ts` turn: warm
 * caches, less noise, only Bub's work and the runtime's `Response` machinery).
 *
 * Run: `BENCH_A=/path/to/other/checkout /work/bin/tool deno run -A bench/turn_cpu_ab.ts` (or
 * `node`, `bun`). `BENCH_A` and `BENCH_B` are checkout folders (default: this checkout for both);
 * `BENCH_NETWORK=0` without the network; `BENCH_TAPE=memory` for the in-memory tape (default the file tape); `BENCH_ROUNDS` rounds
 * (default 15) of `BENCH_N` turns (default 200) after 300 warm-up turns of each.
 *
 * @module
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { Turn } from "./_turn_raw.ts";
import { CpuRounds } from "./_cpu_rounds.ts";
import { startServer } from "./_bench_process.ts";
import { recordReplies, replayFetch } from "./_replay_fetch.ts";

const HERE = join(new URL(".", import.meta.url).pathname, "..");
const A = process.env.BENCH_A ?? HERE;
const B = process.env.BENCH_B ?? HERE;
const N = Number(process.env.BENCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const TAPE = process.env.BENCH_TAPE ?? "file";
const NETWORK = process.env.BENCH_NETWORK !== "0";

type Start = typeof import("./_bench_bub.ts").startFreshSessionTurns;
async function bubOf(root: string, url: string, tag: string) {
  const { startFreshSessionTurns } = await import(join(root, "bench/_bench_bub.ts")) as {
    startFreshSessionTurns: Start;
  };
  return await startFreshSessionTurns(url, `bub-cpu-ab-${tag}-`, TAPE === "memory");
}

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const a = await bubOf(A, server.url, "a");
const b = await bubOf(B, server.url, "b");
if (!NETWORK) {
  // One real turn of A: the response chunks of its two calls, replayed for every later call.
  const replies = await recordReplies(() => a.turn(-1));
  if (replies.length !== 2) throw new Error(`expected 2 calls, got ${replies.length}`);
  replayFetch(replies);
}

const rounds = new CpuRounds();
const times: { a: number[]; b: number[] } = { a: [], b: [] };
const run = async (name: "a" | "b", turn: Turn, n: number) => {
  const ms = await rounds.round(turn, n);
  if (n === N) times[name].push(ms);
};
await run("a", a.turn, 300);
await run("b", b.turn, 300);
for (let r = 0; r < ROUNDS; r++) {
  if (r % 2 === 0) {
    await run("a", a.turn, N);
    await run("b", b.turn, N);
  } else {
    await run("b", b.turn, N);
    await run("a", a.turn, N);
  }
}
server.child.stdin!.end();
for (const bub of [a, b]) {
  await bub.scope[Symbol.asyncDispose]();
  rmSync(bub.home, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const diffs = times.a.map((x, i) => times.b[i]! - x);
const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
console.log(
  `${runtime} ${TAPE} tape${NETWORK ? "" : ", no network"}: A ${
    median(times.a).toFixed(3)
  } ms CPU/turn, B ${median(times.b).toFixed(3)}, B − A ${
    median(diffs).toFixed(3)
  } (median of per-round differences, ${ROUNDS} rounds of ${N})`,
);
