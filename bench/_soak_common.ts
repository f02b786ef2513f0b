/**
 * Shared pieces of the soak script (`bench/soak.ts`): the result of a row, child processes of
 * the current runtime read line by line, and process measurements from `/proc` (Linux only).
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("..", import.meta.url));

/** Options every row gets. */
export interface RowOptions {
  /** Small counts (the whole soak in under a minute). */
  quick: boolean;
}

/** One line of the soak table. */
export interface RowResult {
  /** What was run, e.g. `kill -9 during turns (file store)`. */
  row: string;
  /** What came out, e.g. `committed entries lost: 0 (40 rounds, 812 entries)`. */
  measured: string;
  /** The bound the row is held to. */
  bound: string;
  /** Whether the bound held. */
  pass: boolean;
}

/** The arguments running `script` on the current runtime (`deno run -A` on Deno). */
export function runtimeArgs(script: string, args: readonly string[] = []): string[] {
  return "Deno" in globalThis ? ["run", "-A", script, ...args] : [script, ...args];
}

/** A child process of the current runtime whose stdout is read line by line. */
export interface LineChild {
  readonly child: ChildProcess;
  /** Everything written to stderr so far (the last 8 KiB). */
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the child has exited. */
  readonly exited: Promise<number | string>;
}

/**
 * Starts `script` on the current runtime; `onLine` sees each stdout line. `detached` gives it a
 * process group of its own (kill it and its children with `process.kill(-pid)`).
 */
export function startChild(
  script: string,
  args: readonly string[],
  onLine: (line: string) => void,
  env: Record<string, string> = {},
  detached = false,
): LineChild {
  const child = spawn(process.execPath, runtimeArgs(script, args), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
    detached,
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-8192)));
  createInterface({ input: child.stdout! }).on("line", onLine);
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
    child.once("error", (error) => resolve(`spawn error: ${error.message}`));
  });
  return { child, stderr: () => stderr, exited };
}

/** A `MockLlmServer` in its own process (see `_soak_model.ts`). */
export interface ModelProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts the soak's mock model; `tool` makes every turn call `soak_noop` once before answering. */
export async function startModel(tool = false): Promise<ModelProcess> {
  const script = fileURLToPath(new URL("./_soak_model.ts", import.meta.url));
  let resolveUrl!: (url: string) => void;
  const url = new Promise<string>((resolve) => (resolveUrl = resolve));
  const model = startChild(script, [], (line) => resolveUrl(line), {
    SOAK_MODEL_TOOL: tool ? "1" : "",
  });
  const first = await Promise.race([url, model.exited.then((code) => ({ code }))]);
  if (typeof first !== "string") {
    throw new Error(`mock model exited (${first.code}): ${model.stderr()}`);
  }
  return {
    url: first,
    stop: async () => {
      model.child.stdin!.end();
      const timer = setTimeout(() => model.child.kill("SIGKILL"), 5000);
      await model.exited;
      clearTimeout(timer);
    },
  };
}

/** Open file descriptors of a process (`/proc/<pid>/fd`). */
export function fdCount(pid: number | "self" = "self"): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Open file descriptors of a process by kind (`socket`, `pipe`, `anon_inode`, `file`, `other`). */
export function fdKinds(pid: number | "self" = "self"): Map<string, number> {
  const kinds = new Map<string, number>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target = "gone";
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch { /* closed meanwhile */ }
    const kind = /^(socket|pipe|anon_inode):/.exec(target)?.[1] ??
      (target.startsWith("/") ? "file" : "other");
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return kinds;
}

/** {@link fdKinds} as text, e.g. `12 socket, 9 file, 3 pipe`. */
export function fdKindsText(kinds: Map<string, number>): string {
  return [...kinds].sort((a, b) => b[1] - a[1]).map(([kind, n]) => `${n} ${kind}`).join(", ");
}

/** Resident and peak resident set size of a process in bytes (`VmRSS`, `VmHWM`); 0 when gone. */
export function memoryOf(pid: number | "self" = "self"): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1]);
    return { rss: (kb("VmRSS") || 0) * 1024, peak: (kb("VmHWM") || 0) * 1024 };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

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

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
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

/** JSON with object keys sorted, so equal entries read back from any store compare equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    return Object.fromEntries(
      Object.keys(item).sort().map((key) => [key, (item as Record<string, unknown>)[key]]),
    );
  });
}
