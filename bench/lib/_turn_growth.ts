/**
 * Same-session growth for `turn.bench.ts`: one Bub session grown to each level of prior turns,
 * timed beside the raw client sending the very bytes Bub sent at that level (the same history),
 * and the heap the session retains per turn.
 *
 * @module
 */
import process from "node:process";
import { rawBytesTurn, recordBodies, type Turn } from "./_turn_raw.ts";

/** One growth level's result. */
export interface GrowthRow {
  /** Prior turns in the session when the level was measured. */
  prior: number;
  /** Bub's p50 per turn, ms. */
  bub: number;
  /** The raw client's p50 sending Bub's bytes of that level, ms. */
  raw: number;
  /** Bub's request bytes at that level (both calls). */
  bytes: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Times one level: records Bub's bytes of a turn, then `samples` Bub and raw turns interleaved.
 * Its own function so that the level's request bodies (megabytes at 1000 turns) are garbage once
 * it returns: a suspended async function keeps its dead locals, which the heap figure would count.
 */
async function timeLevel(
  url: string,
  turn: Turn,
  done: number,
  level: number,
  samples: number,
): Promise<{ row: GrowthRow; done: number }> {
  const bodies = await recordBodies(() => turn(done++));
  const raw = rawBytesTurn(url, bodies);
  const bubTimes: number[] = [];
  const rawTimes: number[] = [];
  for (let i = 0; i < samples; i++) {
    let start = performance.now();
    await turn(done++);
    bubTimes.push(performance.now() - start);
    start = performance.now();
    await raw(i);
    rawTimes.push(performance.now() - start);
  }
  const row = {
    prior: level,
    bub: median(bubTimes),
    raw: median(rawTimes),
    bytes: bodies.reduce((sum, body) => sum + body.length, 0),
  };
  return { row, done };
}

/**
 * Grows one session through `levels` (prior turns), timing `samples` Bub turns and `samples` raw
 * turns interleaved at each. `gc` collects garbage (null: no heap figure).
 */
export async function measureGrowth(
  url: string,
  turn: Turn,
  levels: readonly number[],
  samples: number,
  gc: (() => void) | null,
): Promise<{ rows: GrowthRow[]; retainedPerTurn: number | null }> {
  const rows: GrowthRow[] = [];
  let done = 0;
  let heapStart: { turns: number; heap: number } | null = null;
  let retainedPerTurn: number | null = null;
  for (const level of levels) {
    while (done < level) await turn(done++);
    if (gc && heapStart === null && level >= 100) {
      gc();
      gc();
      heapStart = { turns: done, heap: process.memoryUsage().heapUsed };
    }
    const measured = await timeLevel(url, turn, done, level, samples);
    done = measured.done;
    rows.push(measured.row);
  }
  if (gc && heapStart !== null && done > heapStart.turns) {
    gc();
    gc();
    retainedPerTurn = (process.memoryUsage().heapUsed - heapStart.heap) / (done - heapStart.turns);
  }
  return { rows, retainedPerTurn };
}
