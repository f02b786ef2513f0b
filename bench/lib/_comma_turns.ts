/**
 * Shared pieces of the comma-command benches (`shell.bench.ts`, `comma_flood.ts`): a Bub whose
 * turns run `,echo marker-<i>-end` comma commands (the builtin plugin, its default file tape in a
 * fresh home, no model: a comma command never calls one), and the raw baseline, the same
 * `bash -c 'echo …'` spawned with `node:child_process` and read to the end.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import type { BubFramework } from "../../src/builtin/framework.ts";
import { createBenchBub } from "./_bench_bub.ts";

/** The marker command `i` prints. */
export function markerOf(i: number): string {
  return `marker-${i}-end`;
}

/** A running Bub for comma turns; `turn(i)` answers `,echo marker-<i>-end` in chat `c-<i>`. */
export interface CommaBub extends AsyncDisposable {
  /** The framework. */
  readonly bub: BubFramework;
  /** Runs turn `i` and returns its answer (the model output). */
  turn(i: number): Promise<string>;
}

/**
 * Starts a Bub in a fresh home (removed on dispose); `env` adds builtin settings. Its commands run
 * on the host (`BUB_SANDBOX=off` unless `env` says otherwise): the bench channel is not the local
 * terminal, so the default `sandbox: remote` would put each session's first command through a new
 * bubblewrap sandbox (~30 ms on a busy 2-core machine), which `_sandbox_shell.ts` measures apart.
 */
export async function startCommaBub(env: Record<string, string> = {}): Promise<CommaBub> {
  // No model URL: a comma command never calls the model.
  const { bub, home } = await createBenchBub(null, {
    prefix: "bub-comma-bench-",
    env: { BUB_SANDBOX: "off", ...env },
  });
  const scope = await bub.running();
  return {
    bub,
    async turn(i) {
      const result = await bub.processInbound({
        channel: "bench",
        chatId: `c-${i}`,
        content: `,echo ${markerOf(i)}`,
      });
      return result.modelOutput;
    },
    async [Symbol.asyncDispose]() {
      await scope[Symbol.asyncDispose]();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * Spawns `bash -c 'echo marker-<i>-end'` directly (in a new process group with `detached`), reads
 * stdout to the end, returns it.
 */
export function rawEcho(i: number, options: { detached?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", `echo ${markerOf(i)}`], {
      stdio: ["pipe", "pipe", "pipe"],
      detached: options.detached ?? false,
    });
    let out = "";
    child.stdin.end();
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (out += chunk));
    child.stderr.resume();
    child.once("error", reject);
    child.once("close", () => resolve(out.trim()));
  });
}

/**
 * `rawEcho` through `Deno.Command` (the Deno runtime's own spawn), run by `via` (e.g. `setsid`)
 * when given; null elsewhere.
 */
export function rawEchoDeno(via?: string): ((i: number) => Promise<string>) | null {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (typeof deno?.Command !== "function") return null;
  return async (i) => {
    const bash = ["bash", "-c", `echo ${markerOf(i)}`];
    const child = new deno.Command(via ?? "bash", {
      args: via ? bash : bash.slice(1),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    await child.stdin.close();
    const [out] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.status,
    ]);
    return out.trim();
  };
}

/** Runs `count` calls of `run` one after another; returns the wall time in ms. */
export async function sequentialMs(
  count: number,
  run: (i: number) => Promise<string>,
  offset = 0,
): Promise<number> {
  const started = performance.now();
  for (let i = offset; i < offset + count; i++) check(await run(i), i);
  return performance.now() - started;
}

/** Runs `count` calls of `run` at once; returns the wall time in ms. */
export async function concurrentMs(
  count: number,
  run: (i: number) => Promise<string>,
  offset = 0,
): Promise<number> {
  const started = performance.now();
  const outputs = await Promise.all(
    Array.from({ length: count }, (_, k) => run(offset + k)),
  );
  outputs.forEach((output, k) => check(output, offset + k));
  return performance.now() - started;
}

function check(output: string, i: number): void {
  if (output.trim() !== markerOf(i)) {
    throw new Error(`Turn ${i} answered ${JSON.stringify(output.slice(0, 200))}`);
  }
}
