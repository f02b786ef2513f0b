/**
 * Soak row "kill -9 during turns": a child runs turns against the mock model with a file or
 * SQLite tape store and reports each committed entry (`_soak_turn_child.ts`); it is SIGKILLed at
 * a random point, then the store is reopened here and every entry ever reported must be present,
 * every tape must read without error and ids must stay unique and increasing. Rounds share one
 * store, so later rounds also append after a killed writer's leftovers.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FileTapeStore } from "../src/tape/file_store.ts";
import { TapeQuery } from "../src/tape/query.ts";
import { SqliteTapeStore } from "../src/tape/sqlite_store.ts";
import type { TapeStore } from "../src/tape/store.ts";
import {
  canonicalJson,
  type RowOptions,
  type RowResult,
  sleep,
  startChild,
  startModel,
} from "./_soak_common.ts";

const CHILD = fileURLToPath(new URL("./_soak_turn_child.ts", import.meta.url));

type Counts = Map<string, number>;

function bump(counts: Counts, key: string, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

/** Runs one child until a random kill point; adds what it reported committed to `committed`. */
async function round(
  kind: string,
  path: string,
  url: string,
  index: number,
  maxDelayMs: number,
  committed: Map<string, Counts>,
): Promise<void> {
  // Killed at a random point after the first entry of this round is committed.
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const child = startChild(CHILD, [kind, path, url, String(index)], (line) => {
    if (!line.startsWith("ok ")) return;
    ready();
    const space = line.indexOf(" ", 3);
    const tape = line.slice(3, space);
    let counts = committed.get(tape);
    if (!counts) committed.set(tape, counts = new Map());
    bump(counts, line.slice(space + 1));
  });
  const first = await Promise.race([isReady.then(() => null), child.exited]);
  if (first !== null) {
    throw new Error(`turn child exited (${first}) before its first commit: ${child.stderr()}`);
  }
  await sleep(20 + Math.random() * maxDelayMs);
  child.child.kill("SIGKILL");
  const code = await child.exited;
  if (code !== "SIGKILL") throw new Error(`turn child ended with ${code}: ${child.stderr()}`);
}

/** Reopens the store and counts reported entries that are missing; throws when a tape cannot be read. */
async function verify(
  kind: string,
  path: string,
  committed: Map<string, Counts>,
): Promise<{ lost: number; entries: number; problems: string[] }> {
  const store: TapeStore & { close(): Promise<void> } = kind === "sqlite"
    ? new SqliteTapeStore(path)
    : new FileTapeStore(path);
  let lost = 0;
  let entries = 0;
  const problems: string[] = [];
  try {
    for (const [tape, counts] of committed) {
      let read;
      try {
        read = await new TapeQuery(tape, store).all();
      } catch (error) {
        problems.push(`tape ${tape} does not read: ${(error as Error).message}`);
        continue;
      }
      entries += read.length;
      const present: Counts = new Map();
      read.forEach((entry, i) => {
        bump(present, canonicalJson([entry.kind, entry.payload, entry.date]));
        if (i > 0 && entry.id <= read[i - 1]!.id) {
          problems.push(`tape ${tape}: id ${entry.id} repeats`);
        }
      });
      for (const [key, count] of counts) lost += Math.max(0, count - (present.get(key) ?? 0));
    }
  } finally {
    await store.close();
  }
  return { lost, entries, problems };
}

/** The kill -9 row for one store kind. */
export async function killRow(kind: "file" | "sqlite", options: RowOptions): Promise<RowResult> {
  const rounds = options.quick ? 3 : 60;
  const budgetMs = options.quick ? 20_000 : 300_000;
  const maxDelayMs = options.quick ? 500 : 2000;
  const dir = mkdtempSync(join(tmpdir(), `bub-soak-kill-${kind}-`));
  const path = kind === "sqlite" ? join(dir, "tapes.sqlite") : join(dir, "tapes");
  const model = await startModel(true);
  const committed = new Map<string, Counts>();
  const started = performance.now();
  let done = 0;
  let lost = 0;
  let entries = 0;
  const problems: string[] = [];
  try {
    while (done < rounds && performance.now() - started < budgetMs) {
      await round(kind, path, model.url, done, maxDelayMs, committed);
      done++;
      const result = await verify(kind, path, committed);
      lost = Math.max(lost, result.lost);
      entries = result.entries;
      problems.push(...result.problems);
    }
  } finally {
    await model.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  let reported = 0;
  for (const counts of committed.values()) for (const n of counts.values()) reported += n;
  const pass = lost === 0 && problems.length === 0 && reported > 0;
  return {
    row: `kill -9 during turns (${kind} store)`,
    measured: `committed entries lost: ${lost} (${done} kills, ${reported} committed, ${entries} ` +
      `on ${committed.size} tapes)` +
      (problems.length ? `; ${problems.slice(0, 3).join("; ")}` : ""),
    bound: "lost 0, every tape reads, ids increase",
    pass,
  };
}
