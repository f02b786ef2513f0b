/**
 * Measures the peak RSS growth of the host while one `bash` command prints a lot of output.
 * Not part of CI. Usage: `scripts/tool node bench/output_rss.ts [bytes]` (default 2 GB), or the
 * same with deno run -A / bun.
 */
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { ShellManager } from "../src/environment/shell_manager.ts";

const bytes = Number(process.argv[2] ?? Deno_args()[0] ?? 2_000_000_000);

function Deno_args(): string[] {
  const deno = (globalThis as { Deno?: { args?: string[] } }).Deno;
  return deno?.args ?? [];
}

const base = process.memoryUsage().rss;
let peak = base;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
const started = performance.now();
const shells = new ShellManager();
let outcome: string;
try {
  const text = await shells.run({
    command: `head -c ${bytes} /dev/zero | tr '\\0' 'a'`,
    timeoutSeconds: 600,
  });
  outcome = `ok, result ${text.length} chars`;
  const spill = /is in (\S+)\]/.exec(text)?.[1];
  if (spill) rmSync(dirname(spill), { recursive: true, force: true });
} catch (error) {
  outcome = `failed: ${String(error).slice(0, 200)}`;
}
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
const mb = (n: number) => (n / 1048576).toFixed(0);
console.log(
  `output ${bytes} bytes: ${outcome}; rss base ${mb(base)} MB, peak ${mb(peak)} MB, growth ${
    mb(peak - base)
  } MB, ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
process.exit(0);
