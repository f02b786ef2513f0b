/**
 * The tape's hot path (issue 13 item 4): entries serialised once (what a store keeps equals what
 * reading its file back gives, and stays a frozen copy), the file store's descriptor held for its
 * scope (still right when another process resets or replaces the file), and `latestEvents` from
 * the cache's index.
 */
import assert from "node:assert/strict";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { entryLine } from "../../src/tape/file/_jsonl.ts";
import { createEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { pickLatestEvents } from "../../src/tape/latest_events.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import { TapeQuery } from "../../src/tape/query.ts";
import { Tape } from "../../src/tape/tape.ts";
import { withDir } from "./_helpers.ts";

const TAPE = "ws__session";

function variedEntries(prompt: string): TapeEntry[] {
  const meta = { run_id: "run-1" };
  return [
    createEntry("system", { content: prompt }, meta),
    messageEntry({ role: "user", content: [{ type: "text", text: "é 😀 \u2028" }] }, meta),
    createEntry("tool_call", {
      calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
    }, meta),
    createEntry(
      "tool_result",
      { results: [{ n: 1e-7, big: 1e21, neg: -0, nan: NaN }, "ok"] },
      meta,
    ),
    createEntry("event", { name: "run", data: { status: "ok", when: new Date(0), u: undefined } }),
    createEntry("anchor", {
      name: "handoff",
      state: { boxed: new Number(2) as unknown as number },
    }),
  ];
}

test("a turn written through a fork: the file holds Python-format lines, the cache equals a re-read, copies are frozen", async () => {
  await withDir(async (dir) => {
    const store = new FileTapeStore(join(dir, "tapes"));
    const tape = new Tape({ store }).scoped(TAPE);
    const originals = variedEntries("You are Bub. ".repeat(300));
    {
      await using fork = tape.forkTape();
      await fork.appendMany(originals);
      await fork.appendMany(variedEntries("You are Bub. ".repeat(300)));
    }
    // Changing what was appended changes nothing stored.
    (originals[1]!.payload.content as Record<string, unknown>[])[0]!.text = "changed";
    const cached = await new TapeQuery(TAPE, store).all();
    const fresh = new FileTapeStore(join(dir, "tapes"));
    const reread = await new TapeQuery(TAPE, fresh).all();
    assert.equal(cached.length, 12);
    assert.deepEqual(cached, reread);
    const file = readFileSync(store.pathOf(TAPE), "utf8");
    assert.equal(file, reread.map(entryLine).join(""));
    assert.match(file, /"n": 1e-07, "big": 1e\+21, "neg": 0, "nan": null/);
    assert.match(file, /"state": \{"boxed": 2\}/);
    for (const entry of cached) {
      assert.ok(Object.isFrozen(entry) && Object.isFrozen(entry.payload));
      assert.ok(Object.isFrozen(entry.meta));
    }
    // Two equal system prompts are held once.
    assert.equal(cached[0]!.payload, cached[6]!.payload);
    assert.throws(() => {
      (cached[1]!.payload as Record<string, unknown>).content = "x";
    }, TypeError);
    await store.close();
    await fresh.close();
  });
});

test("the memory store keeps frozen copies equal to the appended values", async () => {
  const store = new InMemoryTapeStore();
  const entries = variedEntries("prompt");
  await store.appendMany(TAPE, entries);
  const stored = store.read(TAPE)!;
  assert.deepEqual(
    stored.map((entry) => entry.payload.name ?? entry.kind),
    ["system", "message", "tool_call", "tool_result", "run", "handoff"],
  );
  assert.deepEqual(stored[3]!.payload, {
    results: [{ n: 1e-7, big: 1e21, neg: 0, nan: null }, "ok"],
  });
  assert.deepEqual(stored[4]!.payload.data, { status: "ok", when: new Date(0).toISOString() });
  assert.ok(stored.every((entry) => Object.isFrozen(entry.payload)));
  await assert.rejects(
    store.append(TAPE, createEntry("event", { name: "x", data: { n: 1n } })),
    (error: Error) => error instanceof TypeError && error.message.includes(TAPE),
  );
});

test("the file store holds its descriptor: appends follow a reset or a replaced file", async () => {
  await withDir(async (dir) => {
    const store = new FileTapeStore(join(dir, "tapes"), { durable: false });
    const other = new FileTapeStore(join(dir, "tapes"), { durable: false });
    const user = (content: string) => messageEntry({ role: "user", content });
    await store.append(TAPE, user("one"));
    await store.append(TAPE, user("two"));
    // Another process resets the tape and starts it again.
    await other.reset(TAPE);
    await other.append(TAPE, user("fresh"));
    await store.append(TAPE, user("after reset"));
    assert.deepEqual(
      (await new TapeQuery(TAPE, other).all()).map((e) => [e.id, e.payload.content]),
      [[1, "fresh"], [2, "after reset"]],
    );
    // Another process replaces the file (a rename over it).
    const path = store.pathOf(TAPE);
    writeFileSync(`${path}.new`, entryLine({ ...user("replaced"), id: 1 }));
    renameSync(`${path}.new`, path);
    await store.append(TAPE, user("after replace"));
    // Our own reset, then close and append again.
    assert.deepEqual(
      (await new TapeQuery(TAPE, other).all()).map((e) => [e.id, e.payload.content]),
      [[1, "replaced"], [2, "after replace"]],
    );
    await store.reset(TAPE);
    await store.append(TAPE, user("own reset"));
    await store.close();
    await store.append(TAPE, user("after close"));
    assert.deepEqual(
      (await new TapeQuery(TAPE, other).all()).map((e) => [e.id, e.payload.content]),
      [[1, "own reset"], [2, "after close"]],
    );
    // Many tapes: more than the store holds open at once.
    for (let i = 0; i < 40; i++) await store.append(`ws__t${i}`, user(`t${i}`));
    for (let i = 0; i < 40; i++) await store.append(`ws__t${i}`, user(`t${i} again`));
    assert.deepEqual(
      (await new TapeQuery("ws__t7", other).all()).map((e) => e.id),
      [1, 2],
    );
    await store.close();
    await other.close();
  });
});

test("latestEvents from the cache index equals a scan, also after another store appends", async () => {
  await withDir(async (dir) => {
    for (
      const make of [
        () => new FileTapeStore(join(dir, "a"), { durable: false }),
        () => new InMemoryTapeStore(),
      ]
    ) {
      const store = make();
      const writer = store instanceof FileTapeStore
        ? new FileTapeStore(join(dir, "a"), { durable: false })
        : store;
      const names = ["model_switch", "reasoning_effort_switch", "missing"];
      for (let i = 0; i < 60; i++) {
        const name = ["model_switch", "reasoning_effort_switch", "loop.step", "run"][i % 4]!;
        await (i % 3 ? store : writer).append(TAPE, createEntry("event", { name, data: { i } }));
        if (i % 7 === 0) await store.append(TAPE, createEntry("anchor", { name: "handoff" }));
        const all = await new TapeQuery(TAPE, store).all();
        assert.deepEqual(await store.latestEvents!(TAPE, names), pickLatestEvents(all, names));
      }
      await (store as { close(): Promise<void> }).close();
      if (writer !== store) await (writer as FileTapeStore).close();
    }
  });
});
