/**
 * What a fork over a store with a journal writes when: a resume's records at once (with what the
 * fork deferred before them, in order), the rest by the merge; reads through the fork see what
 * they saw without a journal; a discarded fork leaves no journal; sidecar tapes are journaled
 * and merged too.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { describe, test } from "node:test";
import { createEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { ForkTapeStore } from "../../src/tape/fork_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { SqliteTapeStore } from "../../src/tape/sqlite_store.ts";
import { PostgresTapeStore } from "../../src/tape/postgres_store.ts";
import { withDir } from "./_helpers.ts";
import { uniqueSchema } from "./_postgres.ts";

const TAPE = "ws__journal";
const SIDE = "ws__journal__spill";

const call = { id: "c1", type: "function", function: { name: "bash", arguments: "{}" } };
const turn = (): TapeEntry[][] => [
  [createEntry("event", { name: "loop.start", data: { prompt: "hi" } })],
  [messageEntry({ role: "user", content: "hi" }), createEntry("tool_call", { calls: [call] })],
  [createEntry("event", { name: "tool.start", data: { call_id: "c1", tool: "bash" } })],
  [createEntry("event", { name: "tool.end", data: { call_id: "c1", status: "ok", result: "x" } })],
  [createEntry("tool_result", { results: ["x"] }), createEntry("event", { name: "run", data: {} })],
  [messageEntry({ role: "assistant", content: "done" })],
];

const strip = (entries: TapeEntry[]) => entries.map(({ kind, payload }) => ({ kind, payload }));

const PG_URL = process.env.BUB_TEST_POSTGRES_URL;
const KINDS = ["file", "sqlite", ...(PG_URL ? ["postgres"] as const : [])] as const;

for (const kind of KINDS) {
  describe(`a fork over the ${kind} store`, () => {
    const open = (dir: string) =>
      kind === "file"
        ? new FileTapeStore(dir)
        : kind === "sqlite"
        ? new SqliteTapeStore(join(dir, "t.db"))
        : new PostgresTapeStore(PG_URL!, { schema: uniqueSchema() });

    test("journals a resume's records at once, with what it deferred before them, and the rest by the merge", () =>
      withDir(async (dir) => {
        await using store = open(dir);
        const fork = new ForkTapeStore(store, { tape: TAPE, sidecarTapes: [SIDE] });
        const batches = turn();
        await fork.appendMany(TAPE, batches[0]!);
        assert.deepEqual(await store.journalPending(TAPE), [], "loop.start waits");
        await fork.appendMany(TAPE, batches[1]!);
        const [pending] = await store.journalPending(TAPE);
        assert.deepEqual(strip(pending!.entries), strip([...batches[0]!, ...batches[1]!]));
        assert.equal(pending!.alive, true, "its writer (this process) runs");
        for (const batch of batches.slice(2)) await fork.appendMany(TAPE, batch);
        await fork.appendMany(SIDE, [createEntry("event", { name: "tool.end", data: {} })]);
        const [again] = await store.journalPending(TAPE);
        assert.equal(again!.entries.length, 5, "tool_result, run and the answer wait");
        assert.equal((await store.journalPending(SIDE)).length, 1);
        await fork.mergeBack();
        assert.deepEqual(await store.journalPending(TAPE), []);
        assert.deepEqual(await store.journalPending(SIDE), []);
        const merged = await new TapeQuery(TAPE, store).all();
        assert.deepEqual(strip(merged), strip(batches.flat()));
        assert.equal((await new TapeQuery(SIDE, store).all()).length, 1);
      }));

    test("journalTapes names a tape whose only records are a journal (a session's first turn), until it merges", () =>
      withDir(async (dir) => {
        await using store = open(dir);
        assert.deepEqual(await store.journalTapes(), []);
        const fork = new ForkTapeStore(store, { tape: TAPE, sidecarTapes: [SIDE] });
        const batches = turn();
        await fork.appendMany(TAPE, batches[0]!);
        await fork.appendMany(TAPE, batches[1]!);
        assert.deepEqual(await store.listTapes(), [], "the tape itself does not exist yet");
        assert.deepEqual(await store.journalTapes(), [TAPE]);
        await fork.mergeBack();
        assert.deepEqual(await store.journalTapes(), []);
        assert.deepEqual(await store.listTapes(), [TAPE]);
      }));

    test("reads through the fork see the same as a fork over a memory store", () =>
      withDir(async (dir) => {
        await using store = open(dir);
        const memory = new InMemoryTapeStore();
        const before = [createEntry("event", { name: "tool.end", data: { n: 0 } })];
        await store.appendMany(TAPE, before);
        await memory.appendMany(TAPE, before);
        const forks = [store, memory].map((parent) => new ForkTapeStore(parent, { tape: TAPE }));
        for (const batch of turn()) for (const fork of forks) await fork.appendMany(TAPE, batch);
        const [durable, plain] = forks as [ForkTapeStore, ForkTapeStore];
        const query = (s: ForkTapeStore) => new TapeQuery(TAPE, s);
        assert.deepEqual(
          strip(await durable.fetchAll(query(durable))),
          strip(await plain.fetchAll(query(plain))),
        );
        assert.deepEqual(
          strip(await durable.latestEvents(TAPE, ["tool.end", "run"])),
          strip(await plain.latestEvents(TAPE, ["tool.end", "run"])),
        );
        assert.deepEqual(
          strip(await durable.fetchAll(query(durable).kinds("tool_call"))),
          strip(await plain.fetchAll(query(plain).kinds("tool_call"))),
        );
        await durable.discard();
        assert.deepEqual(
          await store.journalPending(TAPE),
          [],
          "a discarded fork leaves no journal",
        );
        if (kind === "file") {
          const left = [dir, join(dir, "forks")].flatMap((folder) => readdirSync(folder));
          assert.deepEqual(left.filter((name) => name.includes(".fork.")), []);
        }
      }));
  });
}
