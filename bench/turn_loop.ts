/**
 * A plain loop of turns for an outside profiler (`bun --cpu-prof`, `perf`): `BENCH_N` turns
 * (default 2000) of one variant after 300 warm-up turns, against the mock server of
 * `turn.bench.ts` in its own process. `BENCH_WHICH=bub` (default, fresh session per turn),
 * `raw` (the raw client sending Bub's bytes) or `both` (alternating); `BENCH_TAPE=memory` for
 * the in-memory tape; `BENCH_PRIOR=<turns>` runs one session grown to that many prior turns.
 * Prints the CPU ms per turn of the measured loop.
 *
 * Run: `bun --cpu-prof --cpu-prof-md bench/turn_loop.ts`.
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import process from "node:process";
import { rawBytesTurn, recordBodies, TEXT, type Turn } from "./_turn_raw.ts";
import { createBenchBub } from "./_bench_bub.ts";
import { CpuRounds } from "./_cpu_rounds.ts";
import { startServer } from "./_bench_process.ts";

const N = Number(process.env.BENCH_N ?? 2000);
const WHICH = process.env.BENCH_WHICH ?? "bub";
const PRIOR = Number(process.env.BENCH_PRIOR ?? 0);

const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
const { bub, home } = await createBenchBub(server.url, {
  prefix: "bub-turn-loop-",
  memoryTape: process.env.BENCH_TAPE === "memory",
  env: { BUB_MAX_TOKENS: "1024" },
});
const scope = await bub.running();
const bubTurn: Turn = async (i) => {
  const chatId = PRIOR > 0 ? "same-session" : `c-${i}`;
  const result = await bub.processInbound(
    { channel: "bench", chatId, content: `turn ${i}` },
    { stream: true },
  );
  if (result.modelOutput !== TEXT.join("")) throw new Error(`unexpected ${result.modelOutput}`);
};
const rounds = new CpuRounds();
for (let i = 0; i < PRIOR; i++) await bubTurn(-1 - i);
const raw = rawBytesTurn(server.url, await recordBodies(() => bubTurn(-PRIOR - 1)));
const both: Turn = async (i) => {
  await bubTurn(i);
  await raw(i);
};
const run = WHICH === "raw" ? raw : WHICH === "both" ? both : bubTurn;
await rounds.round(run, 300);
const before = threadTimes();
const cpu = await rounds.round(run, N);
const after = threadTimes();
await scope[Symbol.asyncDispose]();
server.child.stdin!.end();
rmSync(home, { recursive: true, force: true });
console.log(`${WHICH}: ${cpu.toFixed(3)} ms CPU/turn over ${N} turns (prior ${PRIOR})`);
const byName = new Map<string, [number, number]>();
for (const [tid, [name, user, system]] of after) {
  const [, u0, s0] = before.get(tid) ?? [name, 0, 0];
  const sum = byName.get(name) ?? [0, 0];
  byName.set(name, [sum[0] + user - u0, sum[1] + system - s0]);
}
for (const [name, [user, system]] of byName) {
  if (user + system === 0) continue;
  // Clock ticks are 10 ms.
  console.log(
    `  thread ${name}: user ${(user * 10 / N).toFixed(3)} sys ${
      (system * 10 / N).toFixed(3)
    } ms/turn`,
  );
}

/** CPU clock ticks per thread of this process (Linux; empty elsewhere). */
function threadTimes(): Map<string, [string, number, number]> {
  const out = new Map<string, [string, number, number]>();
  if (!existsSync("/proc/self/task")) return out;
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(tid, [name, Number(fields[11]), Number(fields[12])]);
    } catch {
      // The thread ended.
    }
  }
  return out;
}
