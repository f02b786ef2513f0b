/**
 * Process helpers of the load benches (cluster, comma flood): CPU time from `/proc` (Linux
 * only), percentiles, CPU burners.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * CPU time (user + system) a process has used so far, in seconds (`/proc/<pid>/stat`, at 100
 * clock ticks per second); NaN when gone.
 */
export function cpuSecondsOf(pid: number | "self" = "self"): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces) in parentheses; utime, stime are 14, 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The `p` quantile (0..1) of `values` (nearest rank); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Starts `count` CPU burners (`sh` busy loops, each ending by itself after `maxSeconds` should
 * this process die first); the returned function kills them.
 */
export function startBurners(count: number, maxSeconds = 900): () => void {
  const burners = Array.from(
    { length: count },
    () =>
      spawn("timeout", [String(maxSeconds), "sh", "-c", "while :; do :; done"], {
        stdio: "ignore",
      }),
  );
  // SIGTERM: `timeout` passes it on to its busy loop (a SIGKILL would orphan the loop).
  return () => {
    for (const burner of burners) burner.kill("SIGTERM");
  };
}
