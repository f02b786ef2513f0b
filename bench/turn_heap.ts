/**
 * Heap retained per turn by one long Bub session (the `turn.bench.ts` turn, file tape, builtin
 * plugin, one chat), on the runtime that runs the script: `BENCH_WARMUP` turns (default 100), a
 * full GC, `BENCH_N` more turns (default 300), a full GC; prints KB retained per turn. With
 * `BENCH_SNAPSHOT=<prefix>` it also writes a heap snapshot before and after the measured turns
 * (`<prefix>.before.heapsnapshot` / `.after.`, V8's format on all three), and on Bun it
 * prints the object types whose counts grew (`bun:jsc` `heapStats()`). `BENCH_FRESH` fresh-session
 * turns (default 0) run first, as in `turn.bench.ts`, whose session starts with a warm JIT.
 *
 * Run (V8 without bytecode flushing, as `turn.bench.ts` does):
 * `node --expose-gc --no-flush-bytecode bench/turn_heap.ts`,
 * `deno run -A --v8-flags=--expose-gc,--no-flush-bytecode bench/turn_heap.ts`,
 * `bun bench/turn_heap.ts`. `BENCH_TAPE=memory` for the in-memory tape.
 *
 * @module
 */
import { rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { TEXT } from "./_turn_raw.ts";
import { createBenchBub } from "./_bench_bub.ts";
import { collectGarbage, startServer } from "./_bench_process.ts";

const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const N = Number(process.env.BENCH_N ?? 300);
const SNAPSHOT = process.env.BENCH_SNAPSHOT ?? "";
/** Fresh-session turns run first (as `turn.bench.ts` does before its session), warming the JIT. */
const FRESH = Number(process.env.BENCH_FRESH ?? 0);

// deno-lint-ignore no-explicit-any
type Any = any;

function fullGc(): void {
  if (!collectGarbage()) throw new Error("no GC: run V8 with --expose-gc");
  collectGarbage();
  collectGarbage();
}

async function typeCounts(): Promise<Record<string, number> | null> {
  if (!(globalThis as { Bun?: unknown }).Bun) return null;
  const jsc: Any = await import("bun:jsc" as string);
  return { ...jsc.heapStats().objectTypeCounts };
}

async function snapshot(name: string): Promise<void> {
  if (!SNAPSHOT) return;
  const bun = (globalThis as { Bun?: Any }).Bun;
  if (bun) {
    writeFileSync(`${SNAPSHOT}.${name}.heapsnapshot`, bun.generateHeapSnapshot("v8"));
    return;
  }
  const v8: Any = await import("node:v8");
  v8.writeHeapSnapshot(`${SNAPSHOT}.${name}.heapsnapshot`);
}

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const { bub, home } = await createBenchBub(server.url, {
  prefix: "bub-turn-heap-",
  memoryTape: process.env.BENCH_TAPE === "memory",
  env: { BUB_MAX_TOKENS: "1024" },
});
const scope = await bub.running();
const turn = async (i: number, chatId = "same-session") => {
  const result = await bub.processInbound(
    { channel: "bench", chatId, content: `turn ${i}` },
    { stream: true },
  );
  if (result.modelOutput !== TEXT.join("")) throw new Error(`unexpected ${result.modelOutput}`);
};
try {
  for (let i = 0; i < FRESH; i++) await turn(i, `fresh-${i}`);
  for (let i = 0; i < WARMUP; i++) await turn(i);
  fullGc();
  await snapshot("before");
  fullGc();
  const counts = await typeCounts();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < N; i++) await turn(WARMUP + i);
  fullGc();
  const after = process.memoryUsage().heapUsed;
  const grown = await typeCounts();
  await snapshot("after");
  const runtime = (globalThis as { Bun?: unknown }).Bun
    ? "bun"
    : (globalThis as { Deno?: unknown }).Deno
    ? "deno"
    : "node";
  console.log(
    `${runtime}: ${((after - before) / N / 1024).toFixed(2)} KB/turn retained ` +
      `(${FRESH} fresh-session turns, ${WARMUP} warm-up turns, N=${N}, one session)`,
  );
  if (counts && grown) {
    const rows = Object.entries(grown)
      .map(([type, count]) => [type, (count - (counts[type] ?? 0)) / N] as const)
      .filter(([, per]) => Math.abs(per) >= 0.05)
      .sort((a, b) => b[1] - a[1]);
    for (const [type, per] of rows) console.log(`  ${type}: ${per.toFixed(2)}/turn`);
  }
} finally {
  await scope[Symbol.asyncDispose]();
  rmSync(home, { recursive: true, force: true });
  server.child.stdin!.end();
  server.child.kill("SIGTERM");
}
