import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import { tempDir } from "./_helpers.ts";

const WRITER = fileURLToPath(new URL("./_writer.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function runtimeArgs(script: string, args: string[]): string[] {
  if ("Deno" in globalThis) return ["run", "-A", script, ...args];
  return [script, ...args];
}

interface Writer {
  child: ChildProcess;
  /** Highest `n` reported committed. */
  committed: () => number;
  exited: Promise<number | null>;
  reached: (n: number) => Promise<void>;
}

function startWriter(args: string[]): Writer {
  const child = spawn(process.execPath, runtimeArgs(WRITER, args), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let last = -1;
  let buffer = "";
  let stderr = "";
  const waiters: { n: number; resolve: () => void }[] = [];
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop()!;
    for (const line of lines) {
      const m = /^ok (\d+)$/.exec(line);
      if (m) last = Number(m[1]);
    }
    for (const w of waiters.splice(0)) {
      if (last >= w.n) w.resolve();
      else waiters.push(w);
    }
  });
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    committed: () => last,
    exited: exited.then((code) => {
      if (code !== 0 && code !== null) throw new Error(`writer failed (${code}): ${stderr}`);
      return code;
    }),
    reached: (n) =>
      new Promise<void>((resolve, reject) => {
        if (last >= n) return resolve();
        waiters.push({ n, resolve });
        exited.then(() => reject(new Error(`writer exited before ${n}: ${stderr}`)));
      }),
  };
}

function checkIds(entries: readonly TapeEntry[]): void {
  assert.deepEqual(
    entries.map((e) => e.id),
    entries.map((_, i) => i + 1),
    "ids are unique, gapless and increasing",
  );
}

function byWriter(entries: readonly TapeEntry[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const entry of entries) {
    const label = String(entry.payload.writer);
    out.set(label, [...(out.get(label) ?? []), Number(entry.payload.n)]);
  }
  return out;
}

const kinds = [
  ["file", (dir: string) => join(dir, "tapes"), (p: string) => new FileTapeStore(p)],
  ["sqlite", (dir: string) => join(dir, "tapes.db"), (p: string) => new SqliteTapeStore(p)],
] as const;

for (const [kind, location, open] of kinds) {
  describe(`durability (${kind} store, real child processes)`, () => {
    test("a writer killed with SIGKILL at any point leaves every committed entry readable, and the next writer continues the ids", async () => {
      const { dir, cleanup } = await tempDir();
      const path = location(dir);
      const writers: Writer[] = [];
      try {
        const rounds = 4;
        for (let round = 0; round < rounds; round++) {
          const writer = startWriter([kind, path, "a__b", `w${round}`, "0"]);
          writers.push(writer);
          await writer.reached(5 + round * 3);
          await new Promise((r) => setTimeout(r, Math.random() * 15));
          writer.child.kill("SIGKILL");
          await writer.exited;
        }
        const store = open(path);
        const entries = await new TapeQuery("a__b", store).all();
        await store.close();
        checkIds(entries);
        const seen = byWriter(entries);
        writers.forEach((writer, round) => {
          const ns = seen.get(`w${round}`) ?? [];
          assert.deepEqual(ns, ns.map((_, i) => i), `writer w${round} lost nothing in the middle`);
          assert.ok(
            ns.length - 1 >= writer.committed(),
            `w${round}: every reported append (${writer.committed()}) is on the tape (${ns.length})`,
          );
        });
      } finally {
        for (const writer of writers) writer.child.kill("SIGKILL");
        await cleanup();
      }
    });

    test("two processes appending to one tape at the same time get unique, gapless, increasing ids and lose nothing", async () => {
      const { dir, cleanup } = await tempDir();
      const path = location(dir);
      const count = 150;
      const writers = ["x", "y"].map((label) =>
        startWriter([kind, path, "a__b", label, String(count)])
      );
      try {
        await Promise.all(writers.map((w) => w.exited));
        const store = open(path);
        const entries = await new TapeQuery("a__b", store).all();
        await store.close();
        assert.equal(entries.length, 2 * count);
        checkIds(entries);
        const seen = byWriter(entries);
        for (const label of ["x", "y"]) {
          assert.deepEqual(
            seen.get(label),
            Array.from({ length: count }, (_, i) => i),
            `${label} in order, complete`,
          );
        }
      } finally {
        for (const writer of writers) writer.child.kill("SIGKILL");
        await cleanup();
      }
    });
  });
}
