/**
 * "The latest event(s) by name": what a turn needs from a session tape's history (the last
 * `model_switch`, ...), answered from the end of the tape by stores that can, else by a full
 * read.
 *
 * @module
 */
import type { TapeEntry } from "./entry.ts";
import { TapeQuery } from "./query.ts";
import type { TapeStore } from "./store.ts";

/**
 * The newest `event` entry of each of `names` (by payload `name`) among `entries` (in tape
 * order), in tape order, at most one per name.
 */
export function pickLatestEvents(
  entries: readonly TapeEntry[],
  names: readonly string[],
): TapeEntry[] {
  const wanted = new Set(names);
  const found: TapeEntry[] = [];
  const seen = new Set<string>();
  for (let i = entries.length - 1; i >= 0 && seen.size < wanted.size; i--) {
    const entry = entries[i]!;
    const name = entry.kind === "event" ? entry.payload.name : undefined;
    if (typeof name !== "string" || !wanted.has(name) || seen.has(name)) continue;
    seen.add(name);
    found.push(entry);
  }
  return found.reverse();
}

/**
 * The newest `event` entry of each of `names` on `tape`, in tape order (see
 * {@link TapeStore.latestEvents}); stores without that operation answer with a full read of
 * the tape's events. A missing tape has none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore } from "@bub/core";
 * import { createEntry, latestEvents } from "@bub/core/tape";
 * const store = new InMemoryTapeStore();
 * await store.append("a__b", createEntry("event", { name: "model_switch", data: { model: "x" } }));
 * await store.append("a__b", createEntry("event", { name: "model_switch", data: { model: "y" } }));
 * const [last] = await latestEvents(store, "a__b", ["model_switch"]);
 * assert.ok(last?.id === 2);
 * ```
 */
export async function latestEvents(
  store: TapeStore,
  tape: string,
  names: readonly string[],
): Promise<TapeEntry[]> {
  if (store.latestEvents) return await store.latestEvents(tape, names);
  const events = await store.fetchAll(new TapeQuery(tape, store).kinds("event"));
  return pickLatestEvents(events, names);
}
