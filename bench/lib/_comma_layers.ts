/**
 * The layers of a comma command's turn, each timed in the same round-robin (one run of every
 * layer per round, so machine load hits all alike; the median per layer): the raw spawn of
 * `bash -c 'echo …'`; the same in a new process group as the runtime offers it (`setsid` exec'd
 * on Deno, `detached: true` elsewhere); `LocalEnvironment` (the driver Bub uses); a whole turn
 * with the tape in memory; a whole turn with the file tape. The difference of two neighbouring
 * rows is what that layer costs: the group, the environment, the framework, the durable tape.
 *
 * @module
 */
import process from "node:process";
import { LocalEnvironment } from "../../src/environment/local_environment.ts";
import { findExecutable } from "../../src/_internal/find_executable.ts";
import { markerOf, rawEcho, rawEchoDeno, startCommaBub } from "./_comma_turns.ts";

type Run = (i: number) => Promise<string>;

/** Prints the layers table: `rounds` round-robin runs of each layer after `warmup` rounds. */
export async function printCommaLayers(rounds: number, warmup: number): Promise<void> {
  const env = new LocalEnvironment();
  const local: Run = async (i) => {
    const proc = await env.spawn(`echo ${markerOf(i)}`);
    proc.closeStdin();
    const [out] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.wait(),
    ]);
    return out.trim();
  };
  const setsid = rawEchoDeno()
    ? findExecutable("setsid", { path: process.env.PATH ?? null })
    : null;
  await using file = await startCommaBub();
  await using memory = await startCommaBub({ BUB_TAPE_STORE: "memory" });
  const layers: [string, Run][] = [
    [
      rawEchoDeno() ? "raw spawn (Deno.Command)" : "raw spawn (child_process)",
      rawEchoDeno() ?? rawEcho,
    ],
    setsid
      ? ["new group: through setsid", rawEchoDeno(setsid)!]
      : ["new group: detached", (i) => rawEcho(i, { detached: true })],
    ["LocalEnvironment", local],
    ["turn, memory tape", memory.turn],
    ["turn, file tape", file.turn],
  ];
  const samples: number[][] = layers.map(() => []);
  for (let round = 0; round < warmup + rounds; round++) {
    for (const [k, [, run]] of layers.entries()) {
      const i = 10_000_000 + k * 1_000_000 + round;
      const started = performance.now();
      const out = await run(i);
      if (round >= warmup) samples[k]!.push(performance.now() - started);
      if (out !== markerOf(i)) throw new Error(`${layers[k]![0]} answered ${JSON.stringify(out)}`);
    }
  }
  const medians = samples.map((list) => [...list].sort((a, b) => a - b)[list.length >> 1]!);
  console.log("");
  console.log(
    `comma turn layers: median ms of ${rounds} round-robin runs (one of each layer per round); ` +
      "each row adds one layer to the row above.",
  );
  console.log("");
  console.log("| layer | ms | × raw | added ms |");
  console.log("|---|---|---|---|");
  for (const [k, [name]] of layers.entries()) {
    const added = k === 0 ? "" : (medians[k]! - medians[k - 1]!).toFixed(2);
    console.log(
      `| ${name} | ${medians[k]!.toFixed(2)} | ${
        (medians[k]! / medians[0]!).toFixed(2)
      }× | ${added} |`,
    );
  }
}
