/**
 * Output loss under load: starts N commands (default 1500, each printing ~100 KB between two
 * marker lines) at once through `ShellManager.run`
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
/** Bytes each command prints between its two marker lines. */
const FILL = 100_000;
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
      command: `sleep 0.5; printf 'out-${i}\\n'; head -c ${FILL} /dev/zero | tr '\\0' a; ` +
        `printf '\\nend-${i}\\n'`,
      timeoutSeconds: 600,
    })),
);
clearInterval(busy);
let lost = 0;
let failed = 0;
results.forEach((result, i) => {
  if (result.status === "rejected") failed++;
  else if (result.value !== `out-${i}\n${"a".repeat(FILL)}\nend-${i}`) lost++;
});
console.log(
  `${count} concurrent commands, busy event loop: outputs lost ${lost}, failed ${failed}, ${
    ((performance.now() - started) / 1000).toFixed(1)
  } s`,
);
process.exit(0);
