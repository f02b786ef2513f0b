/**
 * CPU per turn of this process, without a profiler: Bub's fresh-session turn (the `turn.bench.ts`
 * turn) against the raw `fetch` + SSE client sending Bub's own request bytes, in alternating rounds
 * in one process on the runtime that runs the script. Prints the median of the rounds' CPU ms per
 * turn for each (and the difference), which is far less noisy than wall time on a shared machine.
 *
 * Run: `scripts/tool deno run -A bench/turn_cpu.ts`, `scripts/tool node bench/turn_cpu.ts` or
 * `scripts/tool bun bench/turn_cpu.ts`. `BENCH_TAPE=memory` for the in-memory tape (default the
 * file tape); `BENCH_ROUNDS` (default 7) rounds of `BENCH_N` turns (default 200) per variant after
 * 200 warm-up turns of each. `BENCH_PROFILE_OUT=<file>` also writes a `.cpuprofile` of one more
 * round of each (`<file>.bub.cpuprofile`, `<file>.raw.cpuprofile`).
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

const N = Number(process.env.BENCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARMUP = 200;
const TAPE = process.env.BENCH_TAPE ?? "file";

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const { home, scope, turn: bubTurn } = await startFreshSessionTurns(
  server.url,
  "bub-turn-cpu-",
  TAPE === "memory",
);
const bodies = await recordBodies(() => bubTurn(-1));
const raw = rawBytesTurn(server.url, bodies);

const rounds = new CpuRounds();
const round = (run: Turn, n: number) => rounds.round(run, n);
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const median = (xs: number[]) => quantile(xs, 0.5);

const { bub: bubCpu, raw: rawCpu } = await rounds.alternate(bubTurn, raw, {
  warmup: WARMUP,
  n: N,
  rounds: ROUNDS,
});
const out = process.env.BENCH_PROFILE_OUT;
if (out) {
  for (const [name, run] of [["bub", bubTurn], ["raw", raw]] as const) {
    const stop = await startProfile();
    await round(run, N);
    writeFileSync(
      out.replace(/(\.cpuprofile)?$/, `.${name}.cpuprofile`),
      JSON.stringify(await stop()),
    );
  }
}
await scope[Symbol.asyncDispose]();
server.child.stdin!.end();
rmSync(home, { recursive: true, force: true });

const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
const b = median(bubCpu);
const w = median(rawCpu);
console.log(
  `${runtime} ${TAPE} tape: Bub ${b.toFixed(2)} ms CPU/turn, raw (Bub's bytes) ${
    w.toFixed(2)
  }, over raw ${(b - w).toFixed(2)}; p10 Bub ${quantile(bubCpu, 0.1).toFixed(2)} raw ${
    quantile(rawCpu, 0.1).toFixed(2)
  } (medians of ${ROUNDS} rounds of ${N}; rounds ${bubCpu.map((x) => x.toFixed(2)).join(" ")})`,
);
