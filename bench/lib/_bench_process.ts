/**
 * Child processes of the turn benches: the command line that runs a bench script on one runtime
 * (from `.tools/bin` when present, with the GC exposed) and the mock server started as the
 * script's `--server` mode in its own Node 24 process.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("../..", import.meta.url).pathname;

/**
 * The executable and arguments that run `script` on runtime `name` with `args`. On V8 (Node,
 * Deno) `gc` is exposed and bytecode is never flushed: a GC that drops the bytecode of functions
 * not run lately (setup, earlier levels) shrinks the heap by megabytes and made Node's retained
 * heap per turn read negative.
 */
export function runtimeCommand(name: string, script: string, args: string[]): [string, string[]] {
  const bin = join(ROOT, ".tools/bin", name);
  const exe = existsSync(bin) ? bin : name;
  if (name === "deno") {
    return [exe, ["run", "-A", "--v8-flags=--expose-gc,--no-flush-bytecode", script, ...args]];
  }
  if (name.startsWith("node")) {
    return [exe, ["--expose-gc", "--no-flush-bytecode", script, ...args]];
  }
  return [exe, [script, ...args]];
}

/** Starts `script --server` on Node 24 and resolves with the URL it prints first. */
export async function startServer(script: string): Promise<{ url: string; child: ChildProcess }> {
  const [exe, args] = runtimeCommand("node24", script, ["--server"]);
  const child = spawn(exe, args, { stdio: ["pipe", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Uint8Array) => {
      out += new TextDecoder().decode(chunk);
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) resolve(line.trim());
    });
    child.once("exit", (code) => reject(new Error(`mock server exited with ${code}`)));
  });
  return { url, child };
}

/** Runs a full garbage collection (Bun's, or `gc` under `--expose-gc`); false when there is none. */
export function collectGarbage(): boolean {
  const g = (globalThis as { gc?: () => void }).gc;
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun) bun.gc(true);
  else if (g) g();
  else return false;
  return true;
}
