/**
 * Shell benchmark: spawn-to-exit latency of `true` and throughput of
 * `head -c 100000000 /dev/zero` through `LocalEnvironment`, against the raw runtime APIs
 * (`Deno.Command` on Deno, `child_process.spawn` everywhere), printed as ratios.
 *
 * Run: `scripts/tool deno run -A bench/shell.bench.ts` (also `scripts/tool node …`, `scripts/tool bun …`).
 * Targets: latency ≤ 1.3× raw, throughput ≥ 0.8× raw.
 *
 * @module
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { createDenoDriver, denoCommandAvailable } from "../src/environment/deno_driver.ts";
import { createNodeDriver } from "../src/environment/node_driver.ts";
import { LocalEnvironment } from "../src/environment/local_environment.ts";
import type { ProcessDriver } from "../src/environment/process_driver.ts";

const LATENCY_RUNS = 200;
const WARMUP_RUNS = 20;
const THROUGHPUT_RUNS = 5;
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
for (const [name, runner, rawName, raw] of pairs) {
  const [latency, rawLatency, detachedLatency] = await latencyMs([runner, raw(false), raw(true)]);
  const [rate, rawRate, detachedRate] = await throughputMBps([runner, raw(false), raw(true)]);
  console.log(
    `| ${name} | ${rawName} | ${f(latency!)} | ${f(rawLatency!)} | ${f(detachedLatency!)} | ` +
      `${f(latency! / rawLatency!)}× | ${f(latency! / detachedLatency!)}× | ${f(rate!, 0)} | ` +
      `${f(rawRate!, 0)} | ${f(detachedRate!, 0)} | ${f(rate! / rawRate!)}× | ` +
      `${f(rate! / detachedRate!)}× |`,
  );
}
