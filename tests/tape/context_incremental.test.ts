/**
 * Incremental contexts (issue 13 item 3): `Tape.readMessages()` keeps the selection and extends
 * it with new entries; after every append of varied, seeded tapes — anchors and handoffs of
 * several names, messages, tool calls and results, hidden entries, events, forks merged or
 * discarded (with resets and sidecar writes inside), resets, a second store appending to the same
 * files — it must equal a selection rebuilt from the tape, for four contexts, on the memory and
 * the file store.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { TapeContext } from "../../src/kernel/tape_context.ts";
import {
  buildQuery,
  type ChatMessage,
  contextVisible,
  LAST_ANCHOR,
  selectMessages,
} from "../../src/tape/context.ts";
import { createEntry, messageEntry, type TapeEntry } from "../../src/tape/entry.ts";
import { FileTapeStore } from "../../src/tape/file_store.ts";
import { InMemoryTapeStore } from "../../src/tape/memory_store.ts";
import type { TapeStore } from "../../src/tape/store.ts";
import { Tape } from "../../src/tape/tape.ts";
import { withDir } from "./_helpers.ts";

const CONTEXTS: [string, TapeContext][] = [
  ["last anchor", new TapeContext({ anchor: LAST_ANCHOR, select: selectMessages })],
  ["named anchor", new TapeContext({ anchor: "handoff", select: selectMessages })],
  ["whole tape", new TapeContext({ anchor: null, select: selectMessages })],
  ["messages only", new TapeContext({ anchor: LAST_ANCHOR })],
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A selection rebuilt from the tape (what `readMessages` did before it kept anything). */
async function rebuilt(tape: Tape, context: TapeContext): Promise<ChatMessage[]> {
  const entries = contextVisible(await buildQuery(context, tape.query()).all());
  if (context.select === null) {
    return entries.filter((entry) => entry.kind === "message").map((entry) => ({
      ...entry.payload,
    }));
  }
  return selectMessages(entries);
}

async function outcome(read: () => Promise<ChatMessage[]>): Promise<unknown> {
  try {
    return { ok: await read() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function check(tape: Tape, where: string): Promise<void> {
  for (const [label, context] of CONTEXTS) {
    const view = tape.withContext(context);
    const kept = await outcome(() => view.readMessages());
    const fresh = await outcome(() => rebuilt(view, context));
    assert.deepEqual(kept, fresh, `${where}, ${label}`);
    // Callers may change what they get: the kept selection must not see it.
    const messages = (kept as { ok?: ChatMessage[] }).ok;
    const last = messages?.at(-1);
    if (last) {
      last.content = "changed by a caller";
      if (Array.isArray(last.tool_calls)) {
        (last.tool_calls as Record<string, unknown>[])[0]!.id = "changed";
        (last.tool_calls as unknown[]).push({ id: "extra" });
      }
    }
  }
}

function randomEntry(next: () => number, n: number): TapeEntry {
  const pick = next();
  const meta = next() < 0.1 ? { context: false } : { run_id: `run-${n}` };
  if (pick < 0.3) {
    return messageEntry({ role: next() < 0.5 ? "user" : "assistant", content: `m${n} é` }, meta);
  }
  if (pick < 0.45) {
    const count = 1 + Math.floor(next() * 2);
    const calls = Array.from({ length: count }, (_, k) => ({
      id: next() < 0.8 ? `call_${n}_${k}` : "",
      type: "function",
      function: { name: next() < 0.8 ? `tool${k}` : "", arguments: "{}" },
    }));
    if (next() < 0.1) calls.push("not a call" as never);
    return createEntry("tool_call", { calls }, meta);
  }
  if (pick < 0.6) {
    const count = Math.floor(next() * 3);
    const results = Array.from({ length: count }, (_, k) => k % 2 ? { value: n } : `r${n}`);
    return createEntry("tool_result", { results }, meta);
  }
  if (pick < 0.7) {
    return createEntry("anchor", {
      name: ["handoff", "other", "session/start"][Math.floor(next() * 3)]!,
      ...(next() < 0.5 ? { state: { n } } : {}),
    }, meta);
  }
  if (pick < 0.75) return createEntry("system", { content: `system ${n}` }, meta);
  return createEntry("event", { name: "loop.step", data: { step: n } }, meta);
}

async function scenario(store: TapeStore, seed: number, other?: TapeStore): Promise<void> {
  const next = rng(seed);
  const sidecar = { name: "spill" };
  const tape = new Tape({ store, sidecars: [sidecar] }).scoped("ws__session");
  let n = 0;
  await check(tape, `seed ${seed}, empty`);
  for (let op = 0; op < 120; op++) {
    const roll = next();
    const where = `seed ${seed}, op ${op}`;
    if (roll < 0.55) {
      await tape.append(randomEntry(next, n++));
    } else if (roll < 0.62) {
      await tape.handoff({ name: next() < 0.5 ? "handoff" : "other", state: { n: n++ } });
    } else if (roll < 0.65) {
      await store.reset(tape.name);
    } else if (roll < 0.7 && other) {
      // Another process (another store on the same folder) appends to the tape.
      await other.append(tape.name, randomEntry(next, n++));
    } else {
      // A turn: a fork, checked after every append, then merged back or discarded.
      const merge = next() < 0.8;
      const fork = tape.forkTape(merge);
      try {
        await check(fork, `${where}, fork start`);
        const steps = 1 + Math.floor(next() * 8);
        for (let s = 0; s < steps; s++) {
          const inner = next();
          if (inner < 0.08) await fork.store.reset(fork.name);
          else if (inner < 0.15) {
            await fork.store.append(fork.sidecarTapeName("spill"), randomEntry(next, n++));
          } else if (inner < 0.22) await fork.handoff({ name: "handoff", state: { n: n++ } });
          else await fork.append(randomEntry(next, n++));
          await check(fork, `${where}, fork step ${s}`);
          // The parent, read while the fork is open, does not see the buffer.
          if (s === 0) await check(tape, `${where}, parent during fork`);
        }
      } finally {
        await fork[Symbol.asyncDispose]();
      }
    }
    await check(tape, where);
  }
}

test("incremental context equals a rebuilt one after every append: memory store", async () => {
  for (const seed of [1, 2, 3, 4]) await scenario(new InMemoryTapeStore(), seed);
});

test("incremental context equals a rebuilt one after every append: file store", async () => {
  for (const seed of [5, 6, 7]) {
    await withDir(async (dir) => {
      const store = new FileTapeStore(join(dir, "tapes"), { durable: false });
      const other = new FileTapeStore(join(dir, "tapes"), { durable: false });
      try {
        await scenario(store, seed, other);
      } finally {
        await store.close();
        await other.close();
      }
    });
  }
});

test("a kept context is extended, not rebuilt: reading twice does not re-read old entries", async () => {
  const store = new InMemoryTapeStore();
  const tape = new Tape({ store }).scoped("ws__s");
  await tape.handoff({ name: "session/start" });
  for (let i = 0; i < 50; i++) await tape.append(messageEntry({ role: "user", content: `${i}` }));
  const first = await tape.readMessages();
  await tape.append(messageEntry({ role: "assistant", content: "last" }));
  const second = await tape.readMessages();
  assert.equal(first.length, 50);
  assert.equal(second.length, 51);
  assert.notEqual(first[0], second[0], "each read returns fresh message objects");
  assert.deepEqual(second.slice(0, 50), first);
});
