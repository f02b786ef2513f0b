/**
 * A/B of two source trees in one process: the `turn_inproc.ts` turn (fresh session, `fetch`
 * answered in memory from one recorded real turn) run by this tree's Bub and by the Bub of another
 * checkout of the repository (`BENCH_BASE=<path>`, e.g. a worktree of `main`), in alternating
 * rounds, so that both see the same machine load. Prints each side's median CPU ms per turn and
 * the median of the paired differences (this tree minus the base), the figure to read on a busy
 * machine.
 *
 * Run: `BENCH_BASE=/path/to/base scripts/tool bun bench/turn_tree_ab.ts` (or `node`, `deno run
 * -A`). `BENCH_TAPE=memory` for the in-memory tape (default the file tape); `BENCH_ROUNDS`
 * (default 15) pairs of rounds of `BENCH_N` turns (default 200) after `BENCH_WARMUP` turns of
 * each (default 300).
 *
 * @module
 */
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import process from "node:process";
import type { Turn } from "./_turn_raw.ts";
import { CpuRounds } from "./_cpu_rounds.ts";
import { startServer } from "./_bench_process.ts";

const BASE = process.env.BENCH_BASE;
if (!BASE) throw new Error("set BENCH_BASE to the other checkout");
const N = Number(process.env.BENCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const MEMORY = (process.env.BENCH_TAPE ?? "file") === "memory";

type Start = typeof import("./_bench_bub.ts").startFreshSessionTurns;
const mine: Start = (await import("./_bench_bub.ts")).startFreshSessionTurns;
const base: Start = (await import(resolve(BASE, "bench/_bench_bub.ts"))).startFreshSessionTurns;

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const a = await mine(server.url, "bub-tree-ab-a-", MEMORY);
const b = await base(server.url, "bub-tree-ab-b-", MEMORY);

// One real turn's response chunks; then every call is answered from them, in memory.
const real = globalThis.fetch;
const replies: Uint8Array[][] = [];
globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
  const response = await real(input, init);
  const chunks: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  replies.push(chunks);
  return new Response(new Blob(chunks as BlobPart[]), { headers: response.headers });
}) as typeof fetch;
await a.turn(-1);
globalThis.fetch = real;
server.child.stdin!.end();
if (replies.length !== 2) throw new Error(`expected 2 calls, got ${replies.length}`);
let call = 0;
const headers = { "content-type": "text/event-stream" };
globalThis.fetch = ((_input: string | URL | Request, _init?: RequestInit) => {
  const chunks = replies[call++ % 2]!;
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at < chunks.length) controller.enqueue(chunks[at++]!);
      else controller.close();
    },
  });
  return Promise.resolve(new Response(body, { headers }));
}) as typeof fetch;

const rounds = new CpuRounds();
const measured = await rounds.alternate(a.turn as Turn, b.turn as Turn, {
  warmup: WARMUP,
  n: N,
  rounds: ROUNDS,
});
for (const side of [a, b]) {
  await side.scope[Symbol.asyncDispose]();
  rmSync(side.home, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const diffs = measured.bub.map((value, i) => value - measured.raw[i]!);
const runtime = "Bun" in globalThis ? "bun" : "Deno" in globalThis ? "deno" : "node";
console.log(
  `${runtime} ${MEMORY ? "memory" : "file"} tape: this tree ${
    median(measured.bub).toFixed(3)
  } ms CPU/turn, base ${median(measured.raw).toFixed(3)}, paired difference ${
    median(diffs).toFixed(3)
  } (median of ${ROUNDS} pairs of ${N} turns; differences ${
    diffs.map((d) => d.toFixed(2)).join(" ")
  })`,
);
