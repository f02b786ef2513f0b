/**
 * Soak: the hardening proof of issue 10, as one table. Not part of CI; bounded in count and time;
 * loopback only (127.0.0.1). Each row runs in its own process (`_soak_row.ts`) and prints PASS or
 * FAIL against its bound:
 *
 * - `kill-file`, `kill-sqlite`: a child runs agent turns against the mock model and is SIGKILLed
 *   at random points; every entry it reported committed must be on the reopened tape.
 * - `gateway`: 1000 sessions × 3 messages through the gateway's Telegram channel (fake Bot API,
 *   mock model): lost and duplicated replies, p95 latency, peak RSS, file descriptors.
 * - `commands`: 1500 concurrent shell commands (the `bash` tool's runtime) beside CPU burners:
 *   outputs lost.
 * - `output`: a command printing 2 GB: peak RSS growth.
 *
 * Run: `scripts/tool deno run -A bench/soak.ts [--quick] [--only=<row>[,<row>]]` (also
 * `scripts/tool node bench/soak.ts`, `scripts/tool bun bench/soak.ts`). `--quick` uses small counts
 * (under a minute); the full soak loads the machine for several minutes. Exit code 1 when a row
 * fails. Linux only (`/proc`).
 *
 * @module
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import { memoryOf, mib, type RowResult, startChild } from "./_soak_common.ts";
import { ROWS } from "./_soak_rows.ts";

const ROW_SCRIPT = fileURLToPath(new URL("./_soak_row.ts", import.meta.url));
/** Longest run of one row before it is killed and failed. */
const ROW_LIMIT_MS = { quick: 60_000, full: 900_000 };
/** A row process above this RSS is killed (the machine is shared). */
const RSS_LIMIT = 6 * 1024 ** 3;

function parseArgs(argv: readonly string[]): { quick: boolean; only: string[] } {
  let quick = false;
  let only = Object.keys(ROWS);
  for (const arg of argv) {
    if (arg === "--quick") quick = true;
    else if (arg.startsWith("--only=")) {
      only = arg.slice("--only=".length).split(",").map((name) => name.trim()).filter(Boolean);
      const unknown = only.filter((name) => !(name in ROWS));
      if (unknown.length || only.length === 0) {
        throw new Error(
          `Unknown soak row(s) ${unknown.join(", ") || "(none)"}; known: ${
            Object.keys(ROWS).join(", ")
          }`,
        );
      }
    } else throw new Error(`Unknown argument ${arg}; use --quick and --only=<row>[,<row>]`);
  }
  return { quick, only };
}

/** Runs one row's process; a process that dies or overruns becomes a FAIL line. */
async function runRow(name: string, quick: boolean): Promise<RowResult> {
  let result: RowResult | null = null;
  let baseline = 0;
  const child = startChild(
    ROW_SCRIPT,
    [name, quick ? "1" : "0"],
    (line) => {
      if (line.startsWith("result ")) result = JSON.parse(line.slice("result ".length));
      else if (line.startsWith("baseline ")) baseline = Number(line.slice("baseline ".length));
    },
    {},
    true,
  );
  // A row killed here takes its helpers (model, gateway, writers, burners) with it.
  const kill = () => {
    try {
      process.kill(-child.child.pid!, "SIGKILL");
    } catch {
      child.child.kill("SIGKILL");
    }
  };
  let peak = 0;
  let stopped = "";
  const limitMs = quick ? ROW_LIMIT_MS.quick : ROW_LIMIT_MS.full;
  const timer = setTimeout(() => {
    stopped = `killed after ${limitMs / 1000} s`;
    kill();
  }, limitMs);
  const watch = setInterval(() => {
    const memory = memoryOf(child.child.pid!);
    peak = Math.max(peak, memory.peak);
    if (memory.rss > RSS_LIMIT) {
      stopped = `killed at RSS ${mib(memory.rss)}`;
      kill();
    }
  }, 100);
  const code = await child.exited;
  clearTimeout(timer);
  clearInterval(watch);
  if (result) return result;
  const error = child.stderr().trim().split("\n").filter((line) => /error/i.test(line)).at(0) ??
    child.stderr().trim().split("\n").at(-1) ?? "";
  return {
    row: name,
    measured: `process ended (${stopped || code}) without a result: ${error.slice(0, 160)}` +
      (baseline ? `; peak RSS growth ${mib(peak - baseline)}` : ""),
    bound: "a result",
    pass: false,
  };
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

async function main(): Promise<number> {
  const { quick, only } = parseArgs(process.argv.slice(2));
  const versions = process.versions as Record<string, string | undefined>;
  const runtime = versions.deno
    ? `deno ${versions.deno}`
    : versions.bun
    ? `bun ${versions.bun}`
    : `node ${process.version}`;
  const started = performance.now();
  const results: RowResult[] = [];
  for (const name of only) {
    process.stderr.write(`soak: ${name}…\n`);
    results.push(await runRow(name, quick));
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`# soak${quick ? " --quick" : ""} on ${runtime} (${seconds} s)\n`);
  console.log("| row | measured | bound | result |");
  console.log("|---|---|---|---|");
  for (const result of results) {
    console.log(
      `| ${cell(result.row)} | ${cell(result.measured)} | ${cell(result.bound)} | ${
        result.pass ? "PASS" : "FAIL"
      } |`,
    );
  }
  return results.every((result) => result.pass) ? 0 : 1;
}

process.exitCode = await main();
