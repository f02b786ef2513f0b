/**
 * Kernel overhead: `processInbound` with a trivial `runModel` and K no-op implementations on every
 * stage (K = 0, 10, 50), and the cold import time of mod.ts, on Deno, Node 24 and Bun.
 *
 * Run: `scripts/tool deno run -A bench/kernel.bench.ts` (spawns every runtime and prints a table).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

const STAGES = [
  "resolveSession",
  "loadState",
  "buildPrompt",
  "saveState",
  "renderOutbound",
  "dispatchOutbound",
] as const;

async function measureTurns(k: number): Promise<{ usPerTurn: number; usPerHook: number }> {
  const { KernelFramework } = await import("../src/kernel/mod.ts");
  const home = mkdtempSync(join(tmpdir(), "bub-bench-"));
  const bub = new KernelFramework({
    home,
    configFile: join(home, "config.yml"),
    loadDotenv: false,
  });
  for (let i = 0; i < k; i++) {
    const plugin: Record<string, unknown> = { name: `noop-${i}` };
    for (const stage of STAGES) plugin[stage] = () => null;
    bub.register(plugin);
  }
  bub.register({ name: "model", runModel: ({ prompt }: { prompt: unknown }) => String(prompt) });
  const inbound = () => ({ channel: "bench", chatId: "1", content: "hi" });
  for (let i = 0; i < 2000; i++) await bub.processInbound(inbound());
  const turns = k >= 50 ? 5000 : 20000;
  const start = performance.now();
  for (let i = 0; i < turns; i++) await bub.processInbound(inbound());
  const usPerTurn = (performance.now() - start) * 1000 / turns;
  const hooks = k * STAGES.length + 1;
  return { usPerTurn, usPerHook: usPerTurn / hooks };
}

async function child(): Promise<void> {
  const mode = process.argv.at(-1);
  if (mode === "--import") {
    const target = process.env.BUB_BENCH_IMPORT ?? "../mod.ts";
    const start = performance.now();
    await import(target);
    console.log(JSON.stringify({ importMs: performance.now() - start }));
    return;
  }
  const rows: Record<string, unknown> = {};
  for (const k of [0, 10, 50]) rows[k] = await measureTurns(k);
  console.log(JSON.stringify(rows));
}

function runtimeCommand(name: string, script: string, arg: string): [string, string[]] {
  const bin = join(new URL("..", import.meta.url).pathname, ".tools/bin", name);
  const exe = existsSync(bin) ? bin : name;
  if (name === "deno") return [exe, ["run", "-A", script, arg]];
  return [exe, [script, arg]];
}

function coldImport(runtime: string, script: string, target?: string): number {
  const imports: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [exe, args] = runtimeCommand(runtime, script, "--import");
    const env = { ...process.env, ...(target ? { BUB_BENCH_IMPORT: target } : {}) };
    imports.push(
      JSON.parse(execFileSync(exe, args, { encoding: "utf8", env }).trim().split("\n").at(-1)!)
        .importMs,
    );
  }
  imports.sort((a, b) => a - b);
  return imports[2]!;
}

function main(): void {
  const script = new URL(import.meta.url).pathname;
  const npmBuild = new URL("../npm/dist/mod.js", import.meta.url);
  const runtimes = ["node24", "deno", "bun"];
  const lines = [
    "| runtime | K=0 µs/turn | K=10 µs/turn | K=10 µs/hook | K=50 µs/turn | K=50 µs/hook | cold import ms (source) | cold import ms (npm build) |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const runtime of runtimes) {
    const [exe, args] = runtimeCommand(runtime, script, "--turns");
    const turns = JSON.parse(
      execFileSync(exe, args, { encoding: "utf8" }).trim().split("\n").at(-1)!,
    );
    const source = coldImport(runtime, script);
    const built = existsSync(npmBuild) ? coldImport(runtime, script, npmBuild.href) : NaN;
    const f = (n: number) => Number.isNaN(n) ? "n/a" : n.toFixed(2);
    lines.push(
      `| ${runtime} | ${f(turns[0].usPerTurn)} | ${f(turns[10].usPerTurn)} | ${
        f(turns[10].usPerHook)
      } | ${f(turns[50].usPerTurn)} | ${f(turns[50].usPerHook)} | ${f(source)} | ${f(built)} |`,
    );
  }
  console.log(lines.join("\n"));
}

if (process.argv.includes("--turns") || process.argv.includes("--import")) await child();
else main();
