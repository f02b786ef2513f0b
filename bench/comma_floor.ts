/**
 * The floor under a comma command's turn on the durable file tape (issue 27 item 9): four ways
 * of answering `,echo marker-<i>-end`, each in its own session, measured in alternating blocks
 * (one after another) and rounds (300 at once) so machine load hits them alike:
 *
 * - raw spawn: `bash -c 'echo …'` read to the end (`Deno.Command` on Deno, `child_process`
 *   elsewhere), the baseline of `shell.bench.ts`;
 * - raw spawn + fdatasync'd new file: the same, then what the file tape's commit needs at least
 *   for a new session: a new file created, one ~600-byte write (a comma turn's three entries),
 *   `fdatasync` on the thread pool, close;
 * - Bub, file tape: the whole turn through `processInbound` with the default durable file tape;
 * - Bub, memory tape: the same with `BUB_TAPE_STORE=memory`.
 *
 * "raw + new file" over "raw" is the least a durable new tape can cost; "Bub file" minus
 * "Bub memory" is what it costs Bub. Besides wall time, it prints the process's CPU time per
 * command (`process.cpuUsage`, all threads).
 *
 * Run: `scripts/tool deno run -A bench/comma_floor.ts` (also `scripts/tool node …`,
 * `scripts/tool bun …`); `BENCH_BLOCKS` blocks of 50 (default 6).
 *
 * @module
 */
import { closeSync, fdatasync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { concurrentMs, rawEcho, rawEchoDeno, sequentialMs, startCommaBub } from "./_comma_turns.ts";

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 6);
const BLOCK = 50;
const CONCURRENT = 300;
const ROUNDS = 3;

const raw = rawEchoDeno() ?? rawEcho;
const folder = mkdtempSync(join(tmpdir(), "bub-comma-floor-"));
const LINE = new TextEncoder().encode(`${"x".repeat(610)}\n`);
let files = 0;

/** The raw spawn, then a new file written and flushed as a fresh tape's commit is. */
async function rawWithNewFile(i: number): Promise<string> {
  const output = await raw(i);
  const fd = openSync(join(folder, `t${files++}.jsonl`), "wx", 0o600);
  try {
    writeSync(fd, LINE);
    await new Promise<void>((resolve, reject) =>
      fdatasync(fd, (error) => error ? reject(error) : resolve())
    );
  } finally {
    closeSync(fd);
  }
  return output;
}

await using file = await startCommaBub();
await using memory = await startCommaBub({ BUB_TAPE_STORE: "memory" });
const variants: [string, (i: number) => Promise<string>][] = [
  ["raw spawn", raw],
  ["raw spawn + fdatasync'd new file", rawWithNewFile],
  ["Bub, file tape", file.turn],
  ["Bub, memory tape", memory.turn],
];

let next = 1_000_000;
for (const [, run] of variants) await sequentialMs(20, run, next += 1000);
const wall = variants.map(() => 0);
const cpu = variants.map(() => 0);
for (let block = 0; block < BLOCKS; block++) {
  const order = [...variants.keys()];
  if (block % 2 === 1) order.reverse();
  for (const k of order) {
    const before = process.cpuUsage();
    wall[k]! += await sequentialMs(BLOCK, variants[k]![1], next += 1000);
    const used = process.cpuUsage(before);
    cpu[k]! += (used.user + used.system) / 1000;
  }
}
const rounds: number[][] = variants.map(() => []);
for (let round = 0; round < ROUNDS; round++) {
  for (const [k, [, run]] of variants.entries()) {
    rounds[k]!.push(await concurrentMs(CONCURRENT, run, next += 1000) / CONCURRENT);
  }
}
rmSync(folder, { recursive: true, force: true });

const count = BLOCKS * BLOCK;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const f = (n: number) => n.toFixed(2);
console.log(
  `# comma turn floor: ms per command, ${count} one after another (blocks of ${BLOCK} ` +
    `alternating), ${CONCURRENT} at once (median of ${ROUNDS} rounds, total / ${CONCURRENT})`,
);
console.log("");
console.log("| variant | one after another | CPU ms | vs raw | at once | vs raw |");
console.log("|---|---|---|---|---|---|");
for (const [k, [name]] of variants.entries()) {
  const at = median(rounds[k]!);
  console.log(
    `| ${name} | ${f(wall[k]! / count)} | ${f(cpu[k]! / count)} | ${f(wall[k]! / wall[0]!)}× | ` +
      `${f(at)} | ${f(at / median(rounds[0]!))}× |`,
  );
}
