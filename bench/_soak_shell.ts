/**
 * Soak rows for the shell runtime the `bash` tool uses (`ShellManager.run`):
 * - "concurrent commands": many commands started at once while CPU burners keep every core busy;
 *   an output is lost when it is empty or misses a line the command printed;
 * - "runaway output": one command printing gigabytes; the growth of this process's peak RSS.
 *
 * @module
 */
import { cpus } from "node:os";
import process from "node:process";
import { ShellManager } from "../src/environment/shell_manager.ts";
import { memoryOf, mib, type RowOptions, type RowResult, startBurners } from "./_soak_common.ts";

/** A foreground timeout no run reaches: a command is only judged by its output. */
const TIMEOUT_SECONDS = 3600;
const SEQ = 300;
/**
 * Peak RSS growth allowed while a command prints gigabytes ("memory stays flat"). The output kept
 * in memory is capped at 4 MiB; the rest is V8's heap headroom for short-lived chunks, which levels
 * off near 100-220 MiB (measured: 10 MB printed → +53 MiB, 100 MB → +153, 400 MB → +181, 2 GB →
 * +176 on Deno) where keeping the output would grow with it (2 GB → +2 GiB, then a crash).
 */
const OUTPUT_GROWTH_BOUND = 256 * 1024 * 1024;

function commandOf(i: number): string {
  return `sleep 0.2; echo start-${i}; seq 1 ${SEQ}; echo end-${i} >&2`;
}

function intact(output: string, i: number): boolean {
  const lines = output.split("\n").map((line) => line.trim());
  return lines.includes(`start-${i}`) && lines.includes(`end-${i}`) &&
    lines.includes(String(SEQ)) && lines.length >= SEQ + 2;
}

/** The concurrent-commands row. */
export async function concurrentCommandsRow(options: RowOptions): Promise<RowResult> {
  const count = options.quick ? 60 : 1500;
  const burnerCount = Math.max(2, cpus().length);
  const stopBurners = startBurners(burnerCount);
  const shells = new ShellManager();
  let lost = 0;
  let failed = 0;
  const samples: string[] = [];
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: count }, async (_, i) => {
      try {
        const output = await shells.run({ command: commandOf(i), timeoutSeconds: TIMEOUT_SECONDS });
        if (!intact(output, i)) {
          lost++;
          if (samples.length < 2) samples.push(JSON.stringify(output.slice(0, 60)));
        }
      } catch (error) {
        failed++;
        if (samples.length < 2) samples.push((error as Error).message.slice(0, 100));
      }
    }));
  } finally {
    stopBurners();
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    row: `${count} concurrent commands, ${burnerCount} CPU burners`,
    measured: `outputs lost: ${lost + failed} (${lost} empty or incomplete, ${failed} failed) in ` +
      `${seconds.toFixed(1)} s` + (samples.length ? `; e.g. ${samples.join(" | ")}` : ""),
    bound: "lost 0",
    pass: lost + failed === 0,
  };
}

/**
 * The runaway-output row. Prints `baseline <rss bytes>` first, so a parent watching this process
 * can still report the growth when the process dies of it.
 */
export async function runawayOutputRow(options: RowOptions): Promise<RowResult> {
  const bytes = options.quick ? 100_000_000 : 2_000_000_000;
  const shells = new ShellManager();
  await shells.run({ command: "echo warm" });
  const baseline = memoryOf().rss;
  process.stdout.write(`baseline ${baseline}\n`);
  const started = performance.now();
  let outcome: string;
  try {
    const output = await shells.run({
      command: `yes soak | head -c ${bytes}`,
      timeoutSeconds: TIMEOUT_SECONDS,
    });
    outcome = `returned ${output.length.toLocaleString("en")} characters`;
  } catch (error) {
    outcome = `failed: ${(error as Error).message.slice(0, 100)}`;
  }
  const growth = memoryOf().peak - baseline;
  const seconds = (performance.now() - started) / 1000;
  return {
    row: `a command printing ${(bytes / 1e9).toFixed(1)} GB`,
    measured: `peak RSS growth ${mib(growth)} (${outcome}, ${seconds.toFixed(1)} s)`,
    bound: `growth ≤ ${mib(OUTPUT_GROWTH_BOUND)}`,
    pass: growth <= OUTPUT_GROWTH_BOUND && !outcome.startsWith("failed"),
  };
}
