/**
 * The same-session rows of `turn.bench.ts` alone: one Bub session (file tape, builtin plugin)
 * grown to 10 / 100 / 300 / 1000 prior turns, each level timed beside the raw client sending
 * Bub's bytes of that level, and the heap the session retains per turn (from 100 prior turns on),
 * on Node 24, Deno and Bun (`BENCH_RUNTIMES`, comma-separated). Mock server in its own process.
 *
 * Run: `scripts/tool deno run -A bench/turn_growth.ts`. `BENCH_GROWTH` levels (default
 * 10,100,300,1000), `BENCH_GROWTH_SAMPLES` turns timed per level (default 30).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import process from "node:process";
import { TEXT } from "./_turn_raw.ts";
import { measureGrowth } from "./_turn_growth.ts";
import { createBenchBub } from "./_bench_bub.ts";
import { collectGarbage, runtimeCommand, startServer } from "./_bench_process.ts";

const GROWTH = (process.env.BENCH_GROWTH ?? "10,100,300,1000").split(",").map(Number)
  .filter((level) => level > 0);
const SAMPLES = Number(process.env.BENCH_GROWTH_SAMPLES ?? 30);
const RUNTIMES = (process.env.BENCH_RUNTIMES ?? "node24,deno,bun").split(",");

async function measure(url: string): Promise<void> {
  const { bub, home } = await createBenchBub(url, {
    prefix: "bub-turn-growth-",
    env: { BUB_MAX_TOKENS: "1024" },
  });
  const scope = await bub.running();
  const turn = async (i: number) => {
    const result = await bub.processInbound(
      { channel: "bench", chatId: "same-session", content: `turn ${i}` },
      { stream: true },
    );
    if (result.modelOutput !== TEXT.join("")) {
      throw new Error(`bub: unexpected ${result.modelOutput}`);
    }
  };
  const gc = collectGarbage() ? () => void collectGarbage() : null;
  const result = await measureGrowth(url, turn, GROWTH, SAMPLES, gc);
  await scope[Symbol.asyncDispose]();
  rmSync(home, { recursive: true, force: true });
  console.log(JSON.stringify(result));
}

async function main(): Promise<void> {
  const script = new URL(import.meta.url).pathname;
  // The mock server of turn.bench.ts (its `--server` mode).
  const server = await startServer(new URL("./turn.bench.ts", import.meta.url).pathname);
  const lines = [
    "| runtime | prior turns | bub | raw, same bytes | ratio | request bytes (2 calls) |",
    "|---|---|---|---|---|---|",
  ];
  const heap = ["| runtime | KB/turn, one session |", "|---|---|"];
  try {
    for (const runtime of RUNTIMES) {
      const [exe, args] = runtimeCommand(runtime, script, ["--measure", server.url]);
      const out = execFileSync(exe, args, { encoding: "utf8", maxBuffer: 1 << 26 });
      const result = JSON.parse(out.trim().split("\n").at(-1)!) as Awaited<
        ReturnType<typeof measureGrowth>
      >;
      for (const row of result.rows) {
        lines.push(
          `| ${runtime} | ${row.prior} | ${row.bub.toFixed(2)} | ${row.raw.toFixed(2)} | ${
            (row.bub / row.raw).toFixed(2)
          }× | ${row.bytes} |`,
        );
      }
      const kb = result.retainedPerTurn === null
        ? "n/a"
        : (result.retainedPerTurn / 1024).toFixed(2);
      heap.push(`| ${runtime} | ${kb} |`);
    }
  } finally {
    server.child.stdin!.end();
    server.child.kill("SIGTERM");
  }
  console.log([...lines, "", ...heap].join("\n"));
}

if (process.argv.includes("--measure")) await measure(process.argv.at(-1)!);
else await main();
