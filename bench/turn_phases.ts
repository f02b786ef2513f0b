/**
 * Where a fresh-session turn's wall time goes, Bub beside the raw client sending Bub's bytes: the
 * global `fetch` is wrapped to note when each of the turn's two calls is made and when its
 * response headers arrive, which cuts a turn into five phases (before call 1, call 1 until its
 * headers, from there until call 2 is made: reading call 1's stream, the tool and the bookkeeping,
 * call 2 until its headers, from there until the turn ends). Medians per phase, in alternating
 * rounds; the wrapper costs both sides the same.
 *
 * Run: `scripts/tool deno run -A bench/turn_phases.ts` (or `node`, `bun`); `BENCH_TAPE=memory`
 * for the in-memory tape (default the file tape), `BENCH_N` turns per round (default 200),
 * `BENCH_ROUNDS` (default 5), `BENCH_WARMUP` turns of each first (default 200); `BENCH_N=1
 * BENCH_ROUNDS=150` alternates turn by turn (`turn.bench.ts` with `BENCH_BLOCK=1`).
 *
 * @module
 */
import { rmSync } from "node:fs";
import process from "node:process";
import { rawBytesTurn, recordBodies, type Turn } from "./_turn_raw.ts";
import { startFreshSessionTurns } from "./_bench_bub.ts";
import { startServer } from "./_bench_process.ts";

const N = Number(process.env.BENCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const TAPE = process.env.BENCH_TAPE ?? "file";
const PHASES = ["to call 1", "call 1 headers", "to call 2", "call 2 headers", "to end"] as const;

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const { home, scope, turn: bubTurn } = await startFreshSessionTurns(
  server.url,
  "bub-turn-phases-",
  TAPE === "memory",
);
const bodies = await recordBodies(() => bubTurn(-1));
const raw = rawBytesTurn(server.url, bodies);

const marks: number[] = [];
const real = globalThis.fetch;
globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
  marks.push(performance.now());
  const response = await real(input, init);
  marks.push(performance.now());
  return response;
}) as typeof fetch;

/** Runs `n` turns of `run`; each turn's five phases (ms) appended to `into`. */
let turns = 0;
async function round(run: Turn, n: number, into: number[][]): Promise<void> {
  for (let i = 0; i < n; i++) {
    marks.length = 0;
    const start = performance.now();
    await run(turns++); // A new chat every turn: a fresh session.
    const end = performance.now();
    if (marks.length !== 4) throw new Error(`expected 2 calls, got ${marks.length / 2}`);
    const at = [start, ...marks, end];
    for (let p = 0; p < PHASES.length; p++) into[p]!.push(at[p + 1]! - at[p]!);
    into[PHASES.length]!.push(end - start);
  }
}

const bub = PHASES.map(() => [] as number[]).concat([[]]);
const rawTimes = PHASES.map(() => [] as number[]).concat([[]]);
await round(bubTurn, WARMUP, PHASES.map(() => [] as number[]).concat([[]]));
await round(raw, WARMUP, PHASES.map(() => [] as number[]).concat([[]]));
for (let r = 0; r < ROUNDS; r++) {
  await round(bubTurn, N, bub);
  await round(raw, N, rawTimes);
}
globalThis.fetch = real;
await scope[Symbol.asyncDispose]();
server.child.stdin!.end();
rmSync(home, { recursive: true, force: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
console.log(`${runtime}, ${TAPE} tape, ${ROUNDS}×${N} turns each, median ms per phase`);
console.log("phase            Bub     raw    Bub-raw");
for (const [p, name] of [...PHASES, "whole turn"].entries()) {
  const b = median(bub[p]!);
  const w = median(rawTimes[p]!);
  console.log(
    `${name.padEnd(15)} ${b.toFixed(3).padStart(6)} ${w.toFixed(3).padStart(7)} ${
      (b - w).toFixed(3).padStart(8)
    }`,
  );
}
