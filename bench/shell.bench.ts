/**
 * Shell benchmark: spawn-to-exit latency of `true` and throughput of
 * `head -c 100000000 /dev/zero` through `LocalEnvironment`, against the raw runtime APIs
 * (`Deno.Command` on Deno, `child_process.spawn` everywhere), printed as ratios; then a comma
 * command's whole turn (`,echo marker-<i>-end` through `processInbound`, one session per command,
 * the builtin plugin with its default file tape, on the host: `sandbox: off`) against the raw
 * spawn of the same `bash -c 'echo …'` read to the end (`Deno.Command` on Deno,
 * `child_process.spawn` elsewhere), one after another and 300 at once, in alternating blocks so
 * machine load hits both alike; and
 * the same turns with `BUB_TAPE_STORE=memory`, which leaves out the file tape's commit (a new
 * tape file, its lock and an fdatasync per turn); then the layers of such a turn timed in one
 * round-robin (`_comma_layers.ts`: raw spawn, new process group, LocalEnvironment, turn with the
 * tape in memory, turn with the file tape). Last, where bubblewrap runs, the sandbox
 * (`_sandbox_shell.ts`): `true` on the host against a sandboxed session with network off and with
 * a host allowlist, with and without the spare sandbox, a session's first command (cold, or its
 * sandbox prepared when the turn starts), and 300 sandboxed commands at once against 300 raw
 * spawns.
 *
 * Run: `scripts/tool deno run -A bench/shell.bench.ts` (also `scripts/tool node …`, `scripts/tool bun …`);
 * `--sandbox-only` runs the sandbox rows alone, `--sandbox-first` only those of a session's first
 * command, `--comma-only` only the comma turns' rows and layers.
 * Targets: latency ≤ 1.3× raw, throughput ≥ 0.8× raw, a comma command's turn ≤ 2× raw, a
 * sandboxed command ≤ host + 15 ms.
 *
 * @module
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { createDenoDriver, denoCommandAvailable } from "../src/environment/deno_driver.ts";
import { createNodeDriver } from "../src/environment/node_driver.ts";
import { LocalEnvironment } from "../src/environment/local_environment.ts";
import type { ProcessDriver } from "../src/environment/process_driver.ts";
import {
  concurrentMs,
  rawEcho,
  rawEchoDeno,
  sequentialMs,
  startCommaBub,
} from "./lib/_comma_turns.ts";
import { printCommaLayers } from "./lib/_comma_layers.ts";
import { printFirstCommandSandboxRows, printSandboxRows } from "./lib/_sandbox_shell.ts";

if (process.argv.includes("--sandbox-only") || process.argv.includes("--sandbox-first")) {
  await (process.argv.includes("--sandbox-first")
    ? printFirstCommandSandboxRows
    : printSandboxRows)();
  process.exit(0);
}

const COMMA_ONLY = process.argv.includes("--comma-only");
const LATENCY_RUNS = 200;
const WARMUP_RUNS = 20;
const THROUGHPUT_RUNS = 5;
/** Comma turns: blocks of sequential commands, rounds of concurrent ones. */
const SEQUENTIAL_BLOCKS = 6;
const SEQUENTIAL_BLOCK = 50;
const CONCURRENT = 300;
const CONCURRENT_ROUNDS = 3;
/** Round-robin rounds of the comma turn's layers (`_comma_layers.ts`). */
const LAYER_ROUNDS = 150;
const BYTES = 100_000_000;
const HEAD = ["head", "-c", String(BYTES), "/dev/zero"];

interface Runner {
  /** Starts `argv`, reads stdout to the end (counting bytes), waits for exit; returns the byte count. */
  run(argv: string[]): Promise<number>;
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return total;
    total += value.byteLength;
  }
}

function localRunner(driver: ProcessDriver): Runner {
  const env = new LocalEnvironment(null, { driver });
  return {
    async run(argv) {
      const proc = await env.spawn(argv);
      proc.closeStdin();
      const [bytes] = await Promise.all([drain(proc.stdout), drain(proc.stderr), proc.wait()]);
      return bytes;
    },
  };
}

function childProcessRunner(detached: boolean): Runner {
  return {
    run([file, ...args]) {
      return new Promise((resolve, reject) => {
        const child = spawn(file!, args, { stdio: ["pipe", "pipe", "pipe"], detached });
        let bytes = 0;
        child.stdin.end();
        child.stdout.on("data", (chunk: Uint8Array) => (bytes += chunk.byteLength));
        child.stderr.resume();
        child.once("error", reject);
        child.once("close", () => resolve(bytes));
      });
    },
  };
}

function denoCommandRunner(detached: boolean): Runner {
  return {
    async run([file, ...args]) {
      const child = new Deno.Command(file!, {
        args,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        detached,
      }).spawn();
      await child.stdin.close();
      const [bytes] = await Promise.all([drain(child.stdout), drain(child.stderr), child.status]);
      return bytes;
    },
  };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median latency of each runner, runs interleaved so machine load affects all alike. */
async function latencyMs(runners: Runner[]): Promise<number[]> {
  const samples: number[][] = runners.map(() => []);
  for (let i = 0; i < WARMUP_RUNS + LATENCY_RUNS; i++) {
    for (const [k, runner] of runners.entries()) {
      const start = performance.now();
      await runner.run(["true"]);
      if (i >= WARMUP_RUNS) samples[k]!.push(performance.now() - start);
    }
  }
  return samples.map(median);
}

/** Median throughput (MB/s) of each runner, interleaved. */
async function throughputMBps(runners: Runner[]): Promise<number[]> {
  const rates: number[][] = runners.map(() => []);
  for (let i = 0; i < THROUGHPUT_RUNS; i++) {
    for (const [k, runner] of runners.entries()) {
      const start = performance.now();
      const bytes = await runner.run(HEAD);
      if (bytes !== BYTES) throw new Error(`Expected ${BYTES} bytes, got ${bytes}`);
      rates[k]!.push(bytes / 1e6 / ((performance.now() - start) / 1000));
    }
  }
  return rates.map(median);
}

function runtimeName(): string {
  const versions = process.versions as Record<string, string | undefined>;
  if (denoCommandAvailable()) return `deno ${versions.deno}`;
  if (versions.bun) return `bun ${versions.bun}`;
  return `node ${process.version}`;
}

const pairs: [string, Runner, string, (detached: boolean) => Runner][] = [];
if (denoCommandAvailable()) {
  pairs.push([
    "LocalEnvironment (deno driver)",
    localRunner(createDenoDriver()),
    "Deno.Command",
    denoCommandRunner,
  ]);
}
pairs.push([
  "LocalEnvironment (node driver)",
  localRunner(createNodeDriver()),
  "child_process.spawn",
  childProcessRunner,
]);

const f = (n: number, digits = 2) => n.toFixed(digits);
console.log(`# shell benchmark on ${runtimeName()}`);
console.log(
  `latency: median of ${LATENCY_RUNS} runs of \`true\`; throughput: median of ${THROUGHPUT_RUNS} runs ` +
    `of \`${HEAD.join(" ")}\`; runs interleaved. "raw" = the runtime API as is; "raw detached" = ` +
    "the same with a new process group, which LocalEnvironment requires.",
);
console.log("");
console.log(
  "| path | baseline | latency ms | raw ms | raw detached ms | ratio vs raw (≤ 1.3) | " +
    "ratio vs raw detached | MB/s | raw MB/s | raw detached MB/s | ratio vs raw (≥ 0.8) | " +
    "ratio vs raw detached |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const [name, runner, rawName, raw] of COMMA_ONLY ? [] : pairs) {
  const [latency, rawLatency, detachedLatency] = await latencyMs([runner, raw(false), raw(true)]);
  const [rate, rawRate, detachedRate] = await throughputMBps([runner, raw(false), raw(true)]);
  console.log(
    `| ${name} | ${rawName} | ${f(latency!)} | ${f(rawLatency!)} | ${f(detachedLatency!)} | ` +
      `${f(latency! / rawLatency!)}× | ${f(latency! / detachedLatency!)}× | ${f(rate!, 0)} | ` +
      `${f(rawRate!, 0)} | ${f(detachedRate!, 0)} | ${f(rate! / rawRate!)}× | ` +
      `${f(rate! / detachedRate!)}× |`,
  );
}

/** Per-command ms of `turn` and `raw`: sequential (blocks alternate), concurrent (median round). */
async function commaRows(
  turn: (i: number) => Promise<string>,
  raw: (i: number) => Promise<string>,
): Promise<{ sequential: [number, number]; concurrent: [number, number] }> {
  let next = 1_000_000;
  await sequentialMs(20, turn, next += 1000);
  await sequentialMs(20, raw, next += 1000);
  let turnMs = 0;
  let rawMs = 0;
  for (let block = 0; block < SEQUENTIAL_BLOCKS; block++) {
    turnMs += await sequentialMs(SEQUENTIAL_BLOCK, turn, next += 1000);
    rawMs += await sequentialMs(SEQUENTIAL_BLOCK, raw, next += 1000);
  }
  const count = SEQUENTIAL_BLOCKS * SEQUENTIAL_BLOCK;
  const rounds: [number[], number[]] = [[], []];
  for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
    rounds[0].push(await concurrentMs(CONCURRENT, turn, next += 1000) / CONCURRENT);
    rounds[1].push(await concurrentMs(CONCURRENT, raw, next += 1000) / CONCURRENT);
  }
  return {
    sequential: [turnMs / count, rawMs / count],
    concurrent: [median(rounds[0]), median(rounds[1])],
  };
}

{
  const raw = rawEchoDeno() ?? rawEcho;
  const rawName = rawEchoDeno() ? "Deno.Command" : "child_process.spawn";
  await using bub = await startCommaBub();
  const rows = await commaRows(bub.turn, raw);
  // The same turns with the tape in memory: what the durable file tape's commit adds.
  await using inMemory = await startCommaBub({ BUB_TAPE_STORE: "memory" });
  const memoryRows = await commaRows(inMemory.turn, raw);
  console.log("");
  console.log(
    `comma command turns: \`,echo marker-<i>-end\` in its own session through processInbound ` +
      `(builtin plugin, file tape) against \`bash -c 'echo …'\` spawned with ${rawName} and read ` +
      `to the end; ms per command: ${SEQUENTIAL_BLOCKS * SEQUENTIAL_BLOCK} one after another ` +
      `(blocks of ${SEQUENTIAL_BLOCK} alternating), ${CONCURRENT} at once (median of ` +
      `${CONCURRENT_ROUNDS} alternating rounds, total / ${CONCURRENT}).`,
  );
  console.log("");
  console.log("| tape | runs | Bub turn ms | raw spawn ms | ratio (≤ 2) |");
  console.log("|---|---|---|---|---|");
  for (const [tape, table] of [["file", rows], ["memory", memoryRows]] as const) {
    for (const [name, [turn, rawMs]] of Object.entries(table)) {
      console.log(`| ${tape} | ${name} | ${f(turn)} | ${f(rawMs)} | ${f(turn / rawMs)}× |`);
    }
  }
}

await printCommaLayers(LAYER_ROUNDS, 20);

if (!COMMA_ONLY) await printSandboxRows();
