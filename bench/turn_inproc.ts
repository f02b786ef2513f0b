/**
 * Bub's own CPU per fresh-session turn, without the network: the `turn.bench.ts` turn with the
 * global `fetch` replaced by one that answers from the mock server's recorded responses (same
 * chunks, in memory), so that what remains is Bub's work (request bytes, SSE, hooks, tape, tool)
 * plus the runtime's `Response`/stream machinery. The raw client against the same fake `fetch`
 * and Bub's own request bytes is timed in alternating rounds for reference.
 *
 * Run: `scripts/tool deno run -A bench/turn_inproc.ts` (or `node`, `bun`). `BENCH_TAPE=memory`
 * for the in-memory tape (default the file tape); `BENCH_ROUNDS` (default 9) rounds of `BENCH_N`
 * turns (default 300) after 300 warm-up turns; `BENCH_PROFILE_OUT=<file>` writes a `.cpuprofile`
 * of `BENCH_PROFILE_N` more Bub turns (default 2000; see `bench/_cpu_profile.ts`).
 *
 * @module
 */
import { rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { rawBytesTurn, recordBodies, type Turn } from "./_turn_raw.ts";
import { startFreshSessionTurns } from "./_bench_bub.ts";
import { CpuRounds } from "./_cpu_rounds.ts";
import { startServer } from "./_bench_process.ts";
import { startProfile } from "./_cpu_profile.ts";
import { recordReplies, replayFetch } from "./_replay_fetch.ts";

const N = Number(process.env.BENCH_N ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARMUP = 300;
const TAPE = process.env.BENCH_TAPE ?? "file";
const PROFILE_N = Number(process.env.BENCH_PROFILE_N ?? 2000);

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const { home, scope, turn: bubTurn } = await startFreshSessionTurns(
  server.url,
  "bub-turn-inproc-",
  TAPE === "memory",
);

// One real turn: its request bodies, and the response chunks of its two calls.
let bodies: string[] = [];
const replies = await recordReplies(async () => {
  bodies = await recordBodies(() => bubTurn(-1));
});
server.child.stdin!.end();
if (replies.length !== 2) throw new Error(`expected 2 calls, got ${replies.length}`);
replayFetch(replies);
const raw = rawBytesTurn("http://127.0.0.1:1", bodies);

const rounds = new CpuRounds();
const round = (run: Turn, n: number) => rounds.round(run, n);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { bub: bubCpu, raw: rawCpu } = await rounds.alternate(bubTurn, raw, {
  warmup: WARMUP,
  n: N,
  rounds: ROUNDS,
});
if (process.env.BENCH_PROFILE_OUT) {
  const stop = await startProfile();
  await round(bubTurn, PROFILE_N);
  writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(await stop()));
}
await scope[Symbol.asyncDispose]();
rmSync(home, { recursive: true, force: true });

const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
const b = median(bubCpu);
const w = median(rawCpu);
console.log(
  `${runtime} ${TAPE} tape, no network: Bub ${b.toFixed(3)} ms CPU/turn, raw (Bub's bytes) ${
    w.toFixed(3)
  }, over raw ${(b - w).toFixed(3)} (medians of ${ROUNDS} rounds of ${N}; Bub rounds ${
    bubCpu.map((x) => x.toFixed(3)).join(" ")
  })`,
);
