/**
 * A turn's fork is durable and merges all-or-nothing: a child process appends to a fork of a
 * file, SQLite or PostgreSQL tape and is SIGKILLed at chosen points (while journaling, after the
 * journal before the merge, inside the merge, after it, and at random points of many merges);
 * the reopened store shows none or all of each fork, never a part, never twice, and lists the
 * interrupted fork, which adoption commits with a `turn.interrupted` event.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import type { ForkJournal } from "../../src/tape/fork_journal.ts";
import { adoptInterruptedTurns, listInterruptedTurns } from "../../src/tape/interrupted.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { sidecarTapeName } from "../../src/kernel/tape_context.ts";
import { tapeInfoTool } from "../../src/tools/builtin/tape.ts";
import { tempDir } from "./_helpers.ts";
import { uniqueSchema } from "./_postgres.ts";

const CHILD = fileURLToPath(new URL("./_fork_child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TAPE = "ws__crash";

type Store = TapeStore & ForkJournal & { close(): Promise<void> };

interface Kind {
  name: "file" | "sqlite" | "postgres";
  /** Where the child opens the store, and a fresh store on it. */
  make(): Promise<{ where: string; schema: string; open(): Store; cleanup(): Promise<void> }>;
}

const KINDS: Kind[] = [
  {
    name: "file",
    make: async () => {
      const { dir, cleanup } = await tempDir();
      return { where: dir, schema: "-", open: () => new FileTapeStore(dir), cleanup };
    },
  },
  {
    name: "sqlite",
    make: async () => {
      const { dir, cleanup } = await tempDir();
      const path = join(dir, "tapes.db");
      return { where: path, schema: "-", open: () => new SqliteTapeStore(path), cleanup };
    },
  },
];
const PG_URL = process.env.BUB_TEST_POSTGRES_URL;
if (PG_URL) {
  KINDS.push({
    name: "postgres",
    make: () => {
      const schema = uniqueSchema();
      return Promise.resolve({
        where: PG_URL,
        schema,
        open: () => new PostgresTapeStore(PG_URL, { schema }),
        cleanup: () => Promise.resolve(),
      });
    },
  });
} else {
  console.log("SKIP postgres rows of fork_crash: BUB_TEST_POSTGRES_URL is unset");
}

interface Child {
  child: ChildProcess;
  /** Resolves when the child printed a line matching `pattern`. */
  saw(pattern: RegExp): Promise<string>;
  lines: string[];
  exited: Promise<void>;
}

function startChild(kind: string, where: string, schema: string, mode: string, count: number) {
  const args = [CHILD, kind, where, schema, TAPE, mode, String(count)];
  const child = spawn(process.execPath, "Deno" in globalThis ? ["run", "-A", ...args] : args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let buffer = "";
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.splice(0)) {
        if (waiter.pattern.test(line)) waiter.resolve(line);
        else waiters.push(waiter);
      }
    }
  });
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    child,
    lines,
    exited,
    saw: (pattern: RegExp) =>
      new Promise<string>((resolve, reject) => {
        const found = lines.find((line) => pattern.test(line));
        if (found) return resolve(found);
        waiters.push({ pattern, resolve });
        void exited.then(() => reject(new Error(`child exited before ${pattern}: ${stderr}`)));
      }),
  } satisfies Child;
}

async function kill(child: Child): Promise<void> {
  child.child.kill("SIGKILL");
  await child.exited;
}

/** The child's `tool.start` events by fork label: the `n`s each fork has there. */
function byFork(entries: readonly TapeEntry[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const entry of entries) {
    if (entry.kind !== "event" || entry.payload.name !== "tool.start") continue;
    const data = entry.payload.data as { fork: number; n: number };
    out.set(data.fork, [...(out.get(data.fork) ?? []), data.n]);
  }
  return out;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

async function tapeOf(store: Store): Promise<TapeEntry[]> {
  const entries = await new TapeQuery(TAPE, store).all();
  assert.deepEqual(
    entries.map((e) => e.id),
    range(entries.length).map((i) => i + 1),
    "gapless ids",
  );
  return entries;
}

/** Runs `fn` with a store holding one entry before the child's fork, and a fresh store after. */
async function scenario(
  kind: Kind,
  fn: (start: (mode: string, count: number) => Child, reopen: () => Store) => Promise<void>,
) {
  const place = await kind.make();
  const first = place.open();
  await first.append(TAPE, createEntry("event", { name: "before", data: {} }));
  await first.close();
  const opened: Store[] = [];
  try {
    await fn(
      (mode, count) => startChild(kind.name, place.where, place.schema, mode, count),
      () => {
        const store = place.open();
        opened.push(store);
        return store;
      },
    );
  } finally {
    for (const store of opened) await store.close();
    await place.cleanup();
  }
}

for (const kind of KINDS) {
  describe(`fork journal crash safety (${kind.name} store)`, () => {
    test("killed while journaling: the tape has none of the fork, and the interrupted fork holds every acknowledged append", () =>
      scenario(kind, async (start, reopen) => {
        const child = start("journal", 0);
        await child.saw(/^ok 6$/);
        await kill(child);
        const acked = child.lines.filter((line) => line.startsWith("ok ")).length;
        const store = reopen();
        assert.deepEqual(byFork(await tapeOf(store)).size, 0);
        const [turn, ...rest] = await listInterruptedTurns(store, TAPE);
        assert.equal(rest.length, 0);
        assert.ok(turn!.entries.length >= acked, `${turn!.entries.length} >= ${acked}`);
        assert.deepEqual(byFork(turn!.entries).get(0), range(turn!.entries.length));
      }));

    test("killed after the journal and before the merge: adoption commits the whole fork once, then turn.interrupted", () =>
      scenario(kind, async (start, reopen) => {
        const child = start("hold", 5);
        await child.saw(/^held$/);
        await kill(child);
        const store = reopen();
        assert.equal(byFork(await tapeOf(store)).size, 0);
        const adopted = await adoptInterruptedTurns(store, TAPE);
        assert.equal(adopted.length, 1);
        const entries = await tapeOf(store);
        assert.deepEqual(byFork(entries).get(0), range(5));
        const last = entries.at(-1)!;
        assert.equal(last.payload.name, "turn.interrupted");
        assert.deepEqual(last.payload.data, { fork: adopted[0]!.fork, step: 0, calls: [] });
        assert.deepEqual(await listInterruptedTurns(store, TAPE), []);
        assert.deepEqual(await adoptInterruptedTurns(store, TAPE), [], "adopted once");
        assert.equal((await tapeOf(store)).length, entries.length);
      }));

    test("killed after the merge: the tape has the whole fork once and nothing is interrupted", () =>
      scenario(kind, async (start, reopen) => {
        const child = start("merged", 5);
        await child.saw(/^merged 0$/);
        await kill(child);
        const store = reopen();
        assert.deepEqual(byFork(await tapeOf(store)).get(0), range(5));
        assert.deepEqual(await listInterruptedTurns(store, TAPE), []);
      }));

    test("killed at random points of many merges: every fork is on the tape whole or not at all, never twice, and only the last can be interrupted", async () => {
      for (let round = 0; round < 3; round++) {
        await scenario(kind, async (start, reopen) => {
          const child = start("loop", 3);
          await child.saw(/^merged 1$/);
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 150));
          await kill(child);
          const merged = child.lines.filter((line) => line.startsWith("merged ")).length;
          const store = reopen();
          const forks = byFork(await tapeOf(store));
          for (const [label, ns] of forks) {
            assert.deepEqual(ns, range(3), `fork ${label} whole once`);
          }
          assert.ok(forks.size >= merged, `${forks.size} forks on the tape >= ${merged} merged`);
          const interrupted = await listInterruptedTurns(store, TAPE);
          assert.ok(interrupted.length <= 1);
          for (const turn of interrupted) {
            const [label] = [...byFork(turn.entries).keys()];
            assert.ok(!forks.has(label!), "an interrupted fork is not on the tape too");
          }
          await adoptInterruptedTurns(store, TAPE);
          const after = byFork(await tapeOf(store));
          assert.equal(after.size, forks.size + interrupted.length);
        });
      }
    });
  });
}

describe("fork journal crash safety inside the file store's merge", () => {
  const file = KINDS[0]!;
  const mergingIn = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".merging"));

  test("killed after the journal became the merging file, before the batch was written: the next append undoes it and the fork is interrupted", () =>
    scenario(file, async (start, reopen) => {
      const child = start("merging-none", 4);
      await child.saw(/^merging$/);
      await kill(child);
      const store = reopen() as FileTapeStore;
      assert.equal(mergingIn(store.directory).length, 1);
      await store.append(TAPE, createEntry("event", { name: "after", data: {} }));
      assert.equal(mergingIn(store.directory).length, 0);
      const entries = await tapeOf(store);
      assert.deepEqual(entries.map((e) => e.payload.name), ["before", "after"]);
      const [turn] = await listInterruptedTurns(store, TAPE);
      assert.deepEqual(byFork(turn!.entries).get(0), range(4));
    }));

  test("killed with part of the batch written: the part is cut off the tape, and adoption commits the fork whole", () =>
    scenario(file, async (start, reopen) => {
      const child = start("merging-part", 4);
      await child.saw(/^merging$/);
      await kill(child);
      const store = reopen() as FileTapeStore;
      assert.match(readFileSync(store.pathOf(TAPE), "utf8"), /"torn"/);
      const [turn] = await adoptInterruptedTurns(store, TAPE);
      assert.ok(turn);
      const text = readFileSync(store.pathOf(TAPE), "utf8");
      assert.doesNotMatch(text, /"torn"|"id": 1000, "ki/);
      const entries = await tapeOf(store);
      assert.deepEqual(byFork(entries).get(0), range(4));
      assert.equal(entries.at(-1)!.payload.name, "turn.interrupted");
      assert.equal(mergingIn(store.directory).length, 0);
    }));

  test("killed with the whole batch written but the merging file still there: the merge is kept, once", () =>
    scenario(file, async (start, reopen) => {
      const child = start("merging-whole", 4);
      await child.saw(/^written$/);
      await kill(child);
      const store = reopen() as FileTapeStore;
      assert.equal(mergingIn(store.directory).length, 1);
      assert.deepEqual(await listInterruptedTurns(store, TAPE), []);
      assert.equal(mergingIn(store.directory).length, 0);
      await store.append(TAPE, createEntry("event", { name: "after", data: {} }));
      const entries = await tapeOf(store);
      assert.deepEqual(byFork(entries).get(0), range(4));
      assert.equal(entries.at(-1)!.payload.name, "after");
      assert.ok(!existsSync(`${store.pathOf(TAPE)}.merging`));
    }));
});

describe("an interrupted turn with a sidecar tape", () => {
  for (const kind of KINDS) {
    test(`adoption commits the fork's sidecar journal too (${kind.name} store)`, () =>
      scenario(kind, async (start, reopen) => {
        const child = start("sidecar", 0);
        await child.saw(/^held$/);
        await kill(child);
        const store = reopen();
        const spill = sidecarTapeName(TAPE, "spill");
        assert.equal((await store.journalPending(spill)).length, 1);
        const [turn] = await adoptInterruptedTurns(store, TAPE, { sidecarTapes: [spill] });
        assert.ok(turn);
        const side = await new TapeQuery(spill, store).all();
        assert.deepEqual(side.map((e) => e.payload.data), [{ call_id: "c1", chunk: 0 }]);
        const names = (await tapeOf(store)).map((e) => e.payload.name);
        assert.deepEqual(names, ["before", "tool.end", "turn.interrupted"]);
        assert.deepEqual(await store.journalPending(spill), []);
      }));
  }
});

describe(",tape.info and interrupted turns", () => {
  test("tape.info, run in a turn's fork as ,tape.info runs, lists the turn a killed process left, until it is adopted", () =>
    scenario(KINDS[0]!, async (start, reopen) => {
      const child = start("hold", 2);
      await child.saw(/^held$/);
      await kill(child);
      const store = reopen();
      const [turn] = await listInterruptedTurns(store, TAPE);
      const tape = new Tape({ store }).scoped(TAPE);
      await using fork = tape.forkTape();
      const text = String(await tapeInfoTool().run({}, { tape: fork, runId: null, state: {} }));
      assert.match(
        text,
        /\nlast_token_cache_hit_rate: none\nresumable_turns: 1 \(([0-9a-f]{8}) step 0\)$/,
      );
      assert.equal(/resumable_turns: 1 \(([0-9a-f]{8})/.exec(text)![1], turn!.fork.slice(0, 8));
      await adoptInterruptedTurns(store, TAPE);
      assert.deepEqual((await tape.info()).resumableTurns, []);
    }));
});
