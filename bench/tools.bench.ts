/**
 * Builtin tool benchmark: `fs.read` and `fs.edit` on a 10 MB text file, and `tape.search` over a
 * 100,000-entry tape (memory store and JSONL file store). Prints the median wall time and the
 * peak memory (RSS and JS heap, sampled every 2 ms, as growth over the pre-run baseline).
 *
 * Run: `scripts/tool deno run -A bench/tools.bench.ts` (also `scripts/tool node …`,
 * `scripts/tool bun …`).
 *
 * @module
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { appendAll } from "../src/tape/store.ts";
import { FileTapeStore } from "../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../src/tape/memory_store.ts";
import { messageEntry, type TapeEntry, toolResultEntry } from "../src/tape/entry.ts";
import { Tape } from "../src/tape/tape.ts";
import { fsEditTool, fsReadTool } from "../src/tools/builtin/fs.ts";
import { tapeSearchTool } from "../src/tools/builtin/tape.ts";
import type { ToolContext } from "../src/tools/tool.ts";

const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
const FILE_BYTES = 10 * 1024 * 1024;
const TAPE_ENTRIES = 100_000;
const RUNS = 5;

interface Row {
  case: string;
  "median ms": string;
  "peak rss +MB": string;
  "peak heap +MB": string;
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

/** Runs `fn` `RUNS` times; returns the median time and the largest sampled memory growth. */
async function measure(label: string, fn: () => Promise<unknown>): Promise<Row> {
  (globalThis as { gc?: () => void }).gc?.();
  const times: number[] = [];
  let peakRss = 0;
  let peakHeap = 0;
  for (let run = 0; run < RUNS; run++) {
    const base = process.memoryUsage();
    const sample = () => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss - base.rss);
      peakHeap = Math.max(peakHeap, now.heapUsed - base.heapUsed);
    };
    const timer = setInterval(sample, 2);
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
    sample();
    clearInterval(timer);
  }
  times.sort((a, b) => a - b);
  return {
    case: label,
    "median ms": times[Math.floor(times.length / 2)]!.toFixed(1),
    "peak rss +MB": mb(peakRss),
    "peak heap +MB": mb(peakHeap),
  };
}

function textFile(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `line ${i}: the quick brown fox jumps over the lazy dog ${i % 97}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

function tapeEntries(n: number): TapeEntry[] {
  return Array.from(
    { length: n },
    (_, i) =>
      i % 3 === 2
        ? toolResultEntry([`result ${i} ${i % 1000 === 0 ? "needle" : "hay"} ${"x".repeat(60)}`])
        : messageEntry({
          role: i % 2 ? "assistant" : "user",
          content: `message ${i} ${i % 1000 === 1 ? "needle" : "lorem ipsum dolor"} sit amet`,
        }),
  );
}

const dir = await mkdtemp(join(tmpdir(), "bub-tools-bench-"));
const rows: Row[] = [];
try {
  const file = join(dir, "big.txt");
  const content = textFile(FILE_BYTES);
  const ctx: ToolContext = { tape: null, runId: null, state: { _runtime_workspace: dir } };
  const read = fsReadTool();
  const edit = fsEditTool();
  await writeFile(file, content);
  rows.push(await measure("fs.read 10 MB (whole file)", () => read.run({ path: "big.txt" }, ctx)));
  rows.push(
    await measure(
      "fs.read 10 MB (offset 100000, limit 50)",
      () => read.run({ path: "big.txt", offset: 100_000, limit: 50 }, ctx),
    ),
  );
  let flip = false;
  rows.push(
    await measure("fs.edit 10 MB (replace every 'lazy')", () => {
      flip = !flip;
      return edit.run(
        flip ? { path: "big.txt", old: "lazy", new: "idle" } : {
          path: "big.txt",
          old: "idle",
          new: "lazy",
        },
        ctx,
      );
    }),
  );
  await writeFile(file, content);
  flip = false;
  rows.push(
    await measure("fs.edit 10 MB (one line, start=150000)", () => {
      flip = !flip;
      return edit.run({
        path: "big.txt",
        old: flip ? "line 150001:" : "LINE 150001:",
        new: flip ? "LINE 150001:" : "line 150001:",
        start: 150_000,
      }, ctx);
    }),
  );

  const entries = tapeEntries(TAPE_ENTRIES);
  const stores: [string, () => Promise<Tape>][] = [
    ["memory", async () => {
      const store = new InMemoryTapeStore();
      await appendAll(store, "a__b", entries);
      return new Tape({ store }).scoped("a__b");
    }],
    ["file", async () => {
      const store = new FileTapeStore(join(dir, "tapes"), { durable: false });
      for (let i = 0; i < entries.length; i += 5_000) {
        await appendAll(store, "a__b", entries.slice(i, i + 5_000));
      }
      return new Tape({ store }).scoped("a__b");
    }],
  ];
  const search = tapeSearchTool();
  for (const [label, make] of stores) {
    const tape = await make();
    const tctx: ToolContext = { tape, runId: null, state: {} };
    rows.push(
      await measure(
        `tape.search ${label} 100k ("needle", 20 hits)`,
        () => search.run({ query: "needle" }, tctx),
      ),
    );
    rows.push(
      await measure(
        `tape.search ${label} 100k (no match)`,
        () => search.run({ query: "zebra-unicorn" }, tctx),
      ),
    );
    await (tape.store as { close?: () => Promise<void> }).close?.();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(`builtin tools (${runtime}, ${RUNS} runs each)`);
console.table(rows);
