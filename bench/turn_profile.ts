/**
 * A CPU profile of Bub's turn (the `turn.bench.ts` turn: streamed call → tool → streamed answer,
 * builtin plugin, mock model in its own Node process, fresh session per turn): self time per
 * function of Bub's own code and per bucket (npm packages, runtime, GC), in ms per turn.
 *
 * Run: `scripts/tool deno run -A bench/turn_profile.ts` or `scripts/tool node
 * bench/turn_profile.ts`. `BENCH_N` profiled turns (default 1000) after 200 warm-up turns;
 * `BENCH_TAPE=memory` for the in-memory tape (default the file tape); `BENCH_TOP` rows (default 25);
 * `BENCH_PRIOR=<turns>` profiles one session grown to that many prior turns instead of fresh sessions.
 * `BENCH_PROFILE_OUT=<file>` also writes the raw profile (a `.cpuprofile`, with per-line ticks).
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  inclusiveTimes,
  outsideTimesByCaller,
  selfTimes,
  startProfile,
  topRows,
} from "./_cpu_profile.ts";
import { TEXT } from "./_turn_raw.ts";
import { createBenchBub } from "./_bench_bub.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const N = Number(process.env.BENCH_N ?? 1000);
const TOP = Number(process.env.BENCH_TOP ?? 25);
/** Prior turns of one same-session run (0: a fresh session per turn). */
const PRIOR = Number(process.env.BENCH_PRIOR ?? 0);
const WARMUP = PRIOR > 0 ? PRIOR : 200;
/** Functions whose inclusive time is reported (the system prompt's parts, by default). */
const INCLUSIVE = new RegExp(
  process.env.BENCH_INCLUSIVE ??
    "^(getSystemPrompt|builtinSystemPrompt|skillsPrompt|#?skillsOfTurn|#?skillsPrompt|discover|discoverSkills|renderToolsPrompt|toolsView|systemPrompt|modelTools|tools)$",
);

async function startServer(): Promise<{ url: string; stop: () => void }> {
  const bin = join(ROOT, ".tools/bin/node24");
  const child = spawn(existsSync(bin) ? bin : "node", [
    join(ROOT, "bench/turn.bench.ts"),
    "--server",
  ], { stdio: ["pipe", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Uint8Array) => {
      out += new TextDecoder().decode(chunk);
      if (out.includes("\n")) resolve(out.split("\n")[0]!.trim());
    });
    child.once("exit", (code) => reject(new Error(`mock server exited with ${code}`)));
  });
  return { url, stop: () => child.stdin!.end() };
}

const server = await startServer();
const { bub, home } = await createBenchBub(server.url, {
  prefix: "bub-turn-profile-",
  memoryTape: process.env.BENCH_TAPE === "memory",
  env: { BUB_MAX_TOKENS: "1024" },
});
const scope = await bub.running();
const turn = async (i: number) => {
  const result = await bub.processInbound(
    { channel: "bench", chatId: PRIOR > 0 ? "same" : `p-${i}`, content: `turn ${i}` },
    { stream: true },
  );
  if (result.modelOutput !== TEXT.join("")) throw new Error(`unexpected ${result.modelOutput}`);
};
for (let i = 0; i < WARMUP; i++) await turn(i);
const stop = await startProfile();
const started = performance.now();
const cpuStart = process.cpuUsage();
for (let i = WARMUP; i < WARMUP + N; i++) await turn(i);
const wall = (performance.now() - started) / N;
const cpu = process.cpuUsage(cpuStart);
const profile = await stop();
if (process.env.BENCH_PROFILE_OUT) {
  writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
}
await scope[Symbol.asyncDispose]();
server.stop();
rmSync(home, { recursive: true, force: true });

const { functions, buckets } = selfTimes(profile);
const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
const bub_ = buckets.get("bub") ?? 0;
console.log(
  `## ${runtime}, ${process.env.BENCH_TAPE ?? "file"} tape, ${N} turns` +
    (PRIOR > 0 ? ` of one session after ${PRIOR} prior turns` : "") + ": " +
    `${wall.toFixed(2)} ms wall/turn, ${
      ((cpu.user + cpu.system) / 1000 / N).toFixed(2)
    } ms CPU/turn ` +
    `(profiled), Bub's own code ${(bub_ / N).toFixed(3)} ms self/turn\n`,
);
console.log(["| bucket | ms/turn |", "|---|---|", ...topRows(buckets, N, 15)].join("\n"));
console.log();
console.log(
  ["| Bub function (self time) | ms/turn |", "|---|---|", ...topRows(functions, N, TOP)].join("\n"),
);
console.log();
console.log(
  [
    "| Bub caller → time outside Bub's code | ms/turn |",
    "|---|---|",
    ...topRows(outsideTimesByCaller(profile), N, TOP),
  ].join("\n"),
);
console.log();
console.log(
  [
    "| Bub function (inclusive time) | ms/turn |",
    "|---|---|",
    ...topRows(inclusiveTimes(profile, INCLUSIVE), N, TOP),
  ].join("\n"),
);
