/**
 * "Latest event(s) by name" (issue 10 item 9): every store answers it from the end of the tape
 * exactly as the old full read of the tape's events did.
 */
import assert from "node:assert/strict";
import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { entryLine } from "../../src/tape/file/_jsonl.ts";
import { anchorEntry, eventEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { ForkTapeStore } from "../../src/tape/fork_store.ts";
import { latestEvents, pickLatestEvents } from "../../src/tape/latest_events.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { withDir } from "./_helpers.ts";

const TAPE = "a__b";
const NAMES = ["model_switch", "reasoning_effort_switch", "loop.step", 'we"ird\\name', "é😀"];
const ASKS: string[][] = [
  ["model_switch", "reasoning_effort_switch"],
  ["loop.step"],
  ['we"ird\\name', "é😀", "never"],
  ["never"],
  [],
  [...NAMES, "never", "model_switch"],
];

/** A deterministic long history: messages, anchors and events of every name. */
function history(count: number): TapeEntry[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: TapeEntry[] = [anchorEntry("session/start")];
  for (let i = 1; i < count; i++) {
    const roll = next();
    if (roll < 0.6) {
      // Content that mentions the names without being their events.
      out.push(
        messageEntry({ role: "user", content: `m${i} model_switch ${"lorem ".repeat(30)}` }),
      );
    } else if (roll < 0.62) {
      out.push(anchorEntry(`handoff-${i}`));
    } else {
      const name = NAMES[Math.floor(next() * NAMES.length)]!;
      out.push(eventEntry(name, { i, note: "model_switch" }));
    }
  }
  return out;
}

/** The old answer: every event of the tape, then the newest per name. */
async function fullScan(store: TapeStore, names: string[]): Promise<TapeEntry[]> {
  return pickLatestEvents(await new TapeQuery(TAPE, store).kinds("event").all(), names);
}

async function assertSameAnswers(store: TapeStore, reference: TapeStore, label: string) {
  for (const names of ASKS) {
    const got = await latestEvents(store, TAPE, names);
    assert.deepEqual(got, await fullScan(reference, names), `${label}: ${JSON.stringify(names)}`);
  }
}

describe("latestEvents equals the full scan", () => {
  const entries = history(2000);

  test("in memory", async () => {
    const store = new InMemoryTapeStore();
    await store.appendMany(TAPE, entries);
    assert.ok(store.latestEvents);
    await assertSameAnswers(store, store, "memory");
    assert.deepEqual(await latestEvents(store, "missing__tape", NAMES), []);
  });

  test("in a file, cold, after a full read and after a cold anchor read", () =>
    withDir(async (dir) => {
      const writer = new FileTapeStore(dir, { durable: false });
      await writer.appendMany(TAPE, entries);
      await assertSameAnswers(new FileTapeStore(dir), writer, "file cold");
      const warm = new FileTapeStore(dir);
      await new TapeQuery(TAPE, warm).all();
      await assertSameAnswers(warm, writer, "file warm");
      for (const names of ASKS) {
        const tail = new FileTapeStore(dir);
        await new TapeQuery(TAPE, tail).lastAnchor().all();
        const got = await latestEvents(tail, TAPE, names);
        assert.deepEqual(got, await fullScan(writer, names), `file tail ${names}`);
      }
      // Another process appends: the cache is behind the file.
      await writer.append(TAPE, eventEntry("loop.step", { late: true }));
      await assertSameAnswers(warm, writer, "file grown");
      assert.deepEqual(await latestEvents(warm, "missing__tape", NAMES), []);
    }));

  test("in SQLite", () =>
    withDir(async (dir) => {
      await using store = new SqliteTapeStore(join(dir, "tapes.db"), { durable: false });
      await store.appendMany(TAPE, entries);
      await assertSameAnswers(store, store, "sqlite");
      // Many false candidates (payloads quoting the name) before the real event.
      await store.append(TAPE, eventEntry("loop.step", { i: -1 }));
      for (let i = 0; i < 40; i++) {
        await store.append(TAPE, eventEntry("run", { about: '"loop.step"' }));
      }
      await assertSameAnswers(store, store, "sqlite with false candidates");
      assert.deepEqual(await latestEvents(store, "missing__tape", NAMES), []);
    }));

  test("through a fork: buffered events are newer; a reset fork hides the parent", async () => {
    const parent = new InMemoryTapeStore();
    await parent.appendMany(TAPE, entries);
    const fork = new ForkTapeStore(parent, { tape: TAPE });
    await assertSameAnswers(fork, fork, "fork, nothing buffered");
    await fork.append(TAPE, eventEntry("model_switch", { model: "forked" }));
    await assertSameAnswers(fork, fork, "fork with a buffered event");
    const [latest] = await latestEvents(fork, TAPE, ["model_switch"]);
    assert.equal((latest!.payload.data as { model: string }).model, "forked");
    await fork.reset(TAPE);
    assert.deepEqual(await latestEvents(fork, TAPE, ["model_switch", "loop.step"]), []);
  });
});

test("the file scan reads lines as a full read does: escapes, a BOM, torn and invalid lines", () =>
  withDir(async (dir) => {
    const path = join(dir, `${TAPE}.jsonl`);
    const bom = "\uFEFF" + entryLine({ ...eventEntry("reasoning_effort_switch", { n: 1 }), id: 1 });
    const escaped = entryLine({ ...eventEntry("x", { n: 2 }), id: 2 })
      .replace('"name": "x"', '"name": "model\\u005fswitch"');
    const invalid = '{"id": 3, "kind": "event", "payload": "model_switch"}\n';
    const filler = Array.from(
      { length: 400 },
      (_, i) =>
        entryLine({ ...messageEntry({ role: "user", content: "z".repeat(300) }), id: 4 + i }),
    ).join("");
    const torn = '{"id": 999, "kind": "event", "payload": {"name": "loop.step"';
    await writeFile(path, bom + escaped + invalid + filler);
    await appendFile(path, torn);
    const reference = new FileTapeStore(dir);
    const names = ["model_switch", "reasoning_effort_switch", "loop.step"];
    const expected = await fullScan(reference, names);
    assert.deepEqual(expected.map((e) => e.id), [1, 2]);
    assert.deepEqual(await latestEvents(new FileTapeStore(dir), TAPE, names), expected);
  }));
