/**
 * Comma-command flood (issue 27 item 9): `--count` turns (default 1500), each `,echo
 * marker-<i>-end` in its own session (chat `c-<i>`), started at once through
 * `processInbound` of a Bub with the builtin plugin and its default file tape; then the same
 * count of `bash -c 'echo marker-<i>-end'` spawned at once with `node:child_process` (the raw
 * baseline). With `--burners=<n>`, n CPU burners (`timeout 120 sh -c 'while :; do :; done'`)
 * keep the cores busy during both. Every turn must answer its own marker: a turn that answers
 * `command timed out after 30 seconds; …` or anything else is counted and the script exits 1.
 *
 * Not part of the test suite (too slow). Run:
 * `scripts/tool deno run -A bench/comma_flood.ts [--count=1500] [--burners=4]`
 * (also `scripts/tool node …`, `scripts/tool bun …`).
 *
 * @module
 */
import process from "node:process";
import { markerOf, rawEcho, startCommaBub } from "./lib/_comma_turns.ts";
import { startBurners } from "./lib/_process_measure.ts";

function parseArgs(argv: readonly string[]): { count: number; burners: number } {
  const options = { count: 1500, burners: 0 };
  for (const arg of argv) {
    const match = arg.match(/^--(count|burners)=(\d+)$/);
    if (!match) throw new Error(`Unknown argument ${arg}; use --count=<n> and --burners=<n>`);
    options[match[1] as "count" | "burners"] = Number(match[2]);
  }
  return options;
}

/** How `count` concurrent calls of `run` ended: answered right, timed out, other. */
async function flood(
  count: number,
  run: (i: number) => Promise<string>,
): Promise<{ seconds: number; answered: number; timedOut: number; other: string[] }> {
  const started = performance.now();
  const outputs = await Promise.all(
    Array.from(
      { length: count },
      (_, i) => run(i).catch((error: unknown) => `error: ${(error as Error).message}`),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  let answered = 0;
  let timedOut = 0;
  const other: string[] = [];
  outputs.forEach((output, i) => {
    if (output.trim() === markerOf(i)) answered++;
    else if (output.startsWith("command timed out after")) timedOut++;
    else other.push(output.slice(0, 120));
  });
  return { seconds, answered, timedOut, other };
}

function runtimeName(): string {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.deno) return `deno ${versions.deno}`;
  if (versions.bun) return `bun ${versions.bun}`;
  return `node ${process.version}`;
}

const { count, burners } = parseArgs(process.argv.slice(2));
const stopBurners = burners > 0 ? startBurners(burners, 120) : () => {};
let failed = false;
try {
  await using bub = await startCommaBub();
  await bub.turn(-1).catch(() => {}); // loads the comma-command and shell modules
  const turns = await flood(count, bub.turn);
  const raw = await flood(count, rawEcho);
  console.log(`# comma flood on ${runtimeName()}: ${count} turns at once, ${burners} CPU burners`);
  console.log("");
  console.log("| path | seconds | answered | timed out | other |");
  console.log("|---|---|---|---|---|");
  for (const [name, result] of [["Bub `,echo` turns", turns], ["raw bash -c", raw]] as const) {
    console.log(
      `| ${name} | ${result.seconds.toFixed(1)} | ${result.answered}/${count} | ` +
        `${result.timedOut} | ${result.other.length} |`,
    );
  }
  for (const sample of turns.other.slice(0, 3)) console.log(`other answer: ${sample}`);
  failed = turns.answered !== count;
} finally {
  stopBurners();
}
if (failed) process.exitCode = 1;
