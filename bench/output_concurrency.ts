/**
 * Output loss under load: starts N commands at once (default 1500) through `ShellManager.run`
 * while the host's event loop is kept busy (blocked 40 ms of every 50 ms), and counts results
 * that are not exactly their command's output. Not part of CI; loopback only, bounded in count.
 *
 * Run: `scripts/tool node bench/output_concurrency.ts [count]` (also deno run -A, bun).
 *
 * @module
 */
import process from "node:process";
import { ShellManager } from "../src/environment/shell_manager.ts";

const deno = (globalThis as { Deno?: { args?: string[] } }).Deno;
const count = Number(process.argv[2] ?? deno?.args?.[0] ?? 1500);
const busy = setInterval(() => {
  const until = Date.now() + 40;
  while (Date.now() < until) {
    // keep the event loop busy, as a loaded host would
  }
}, 50);
const shells = new ShellManager();
const started = performance.now();
const results = await Promise.allSettled(
  Array.from({ length: count }, (_, i) =>
    shells.run({
      command: `sleep 0.5; printf 'out-${i}\\n'; printf 'err-${i}\\n' >&2; printf 'end-${i}\\n'`,
      timeoutSeconds: 600,
    })),
);
clearInterval(busy);
let lost = 0;
let failed = 0;
results.forEach((result, i) => {
  if (result.status === "rejected") failed++;
  // stdout and stderr are two pipes: compare the lines, not their interleaving.
  else if (result.value.split("\n").sort().join() !== `end-${i},err-${i},out-${i}`) lost++;
});
console.log(
  `${count} concurrent commands, busy event loop: outputs lost ${lost}, failed ${failed}, ${
    ((performance.now() - started) / 1000).toFixed(1)
  } s`,
);
process.exit(0);
