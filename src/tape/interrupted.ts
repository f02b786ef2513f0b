/**
 * Interrupted turns: the fork journals (see `fork_journal.ts`) a dead process left on a tape,
 * and their adoption: each fork's entries are committed into the tape, followed by a
 * `turn.interrupted` event `{fork, step, calls: [{call_id, tool, state}]}` that says where the
 * turn stood (`src/agent/interrupted_turn.ts` reads it back to resume the turn).
 *
 * Call it holding the session (the process that serves it; in a cluster, the lease): a journal
 * whose writer still runs on this machine is never taken.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { createEntry, type TapeEntry } from "./entry.ts";
import { type ForkJournal, forkJournalOf, type PendingFork } from "./fork_journal.ts";
import type { TapeStore } from "./store.ts";

/**
 * The name of the event an adoption appends.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TURN_INTERRUPTED } from "@bub/core/tape";
 * assert.equal(TURN_INTERRUPTED, "turn.interrupted");
 * ```
 */
export const TURN_INTERRUPTED = "turn.interrupted";

/**
 * Where one tool call of an interrupted step stood.
 *
 * @example
 * ```ts
 * import type { InterruptedCall } from "@bub/core/tape";
 * const call: InterruptedCall = { call_id: "call_1", tool: "bash", state: "started" };
 * ```
 */
export interface InterruptedCall {
  /** The model's call id. */
  call_id: string;
  /** The tool name. */
  tool: string;
  /** `completed` (its `tool.end` is there), `started` (only its `tool.start`) or `not_started`. */
  state: "completed" | "started" | "not_started";
}

/**
 * An interrupted turn: a fork's journal whose writer is gone.
 *
 * @example
 * ```ts
 * import type { InterruptedTurn } from "@bub/core/tape";
 * const turn: InterruptedTurn = { fork: "f", tape: "a__b", owner: "host/1/-/-", step: 1, calls: [], entries: [] };
 * ```
 */
export interface InterruptedTurn {
  /** The fork id. */
  fork: string;
  /** The tape. */
  tape: string;
  /** Who wrote it. */
  owner: string;
  /** The step it was in (the newest step its entries name; 0 before any). */
  step: number;
  /** The calls of its last `tool_call` entry without a `tool_result`, else none. */
  calls: InterruptedCall[];
  /** Its journaled entries (fork-local ids). */
  entries: TapeEntry[];
}

/**
 * Options of {@link listInterruptedTurns} and {@link adoptInterruptedTurns}.
 *
 * @example
 * ```ts
 * import type { InterruptedOptions } from "@bub/core/tape";
 * const options: InterruptedOptions = { includeUnknown: true, sidecarTapes: ["ws__abc__spill"] };
 * ```
 */
export interface InterruptedOptions {
  /**
   * Also take journals whose writer's state is unknown (written on another machine, as cluster
   * instances do; take them holding the session's lease). Default false.
   */
  includeUnknown?: boolean;
  /** The tape's sidecar tapes (their journals of the same forks are committed first). */
  sidecarTapes?: readonly string[];
}

function _data(entry: TapeEntry): Record<string, unknown> {
  const data = entry.payload.data;
  return isRecord(data) ? data : {};
}

function _eventName(entry: TapeEntry): string | null {
  return entry.kind === "event" && typeof entry.payload.name === "string"
    ? entry.payload.name
    : null;
}

/**
 * The step and the pending calls of a fork's entries: the step is the newest `step` named by a
 * `loop.step.start`/`loop.step` event (else the number of `run` events); the calls are those of
 * the last `tool_call` entry when no `tool_result` follows it, each `completed` (a `tool.end`
 * event with its `call_id`), `started` (a `tool.start` only) or `not_started`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createEntry, describeFork } from "@bub/core/tape";
 * const call = { id: "c1", type: "function", function: { name: "bash", arguments: "{}" } };
 * const entries = [createEntry("tool_call", { calls: [call] })];
 * assert.deepEqual(describeFork(entries).calls, [{ call_id: "c1", tool: "bash", state: "not_started" }]);
 * ```
 */
export function describeFork(
  entries: readonly TapeEntry[],
): { step: number; calls: InterruptedCall[] } {
  let step = 0;
  let runs = 0;
  let lastCall = -1;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const name = _eventName(entry);
    if (name === "loop.step.start" || name === "loop.step") {
      const n = Number(_data(entry).step);
      if (Number.isInteger(n)) step = Math.max(step, n);
    } else if (name === "run") runs++;
    else if (entry.kind === "tool_call") lastCall = i;
    else if (entry.kind === "tool_result") lastCall = -1;
  }
  if (step === 0) step = runs;
  if (lastCall < 0) return { step, calls: [] };
  const started = new Set<string>();
  const ended = new Set<string>();
  for (const entry of entries.slice(lastCall + 1)) {
    const name = _eventName(entry);
    const id = _data(entry).call_id;
    if (typeof id !== "string") continue;
    if (name === "tool.start") started.add(id);
    else if (name === "tool.end") ended.add(id);
  }
  const raw = entries[lastCall]!.payload.calls;
  const calls = (Array.isArray(raw) ? raw : []).map((call, i): InterruptedCall => {
    const record = isRecord(call) ? call : {};
    const fn = isRecord(record.function) ? record.function : {};
    const callId = typeof record.id === "string" && record.id ? record.id : `call_${i}`;
    const state = ended.has(callId) ? "completed" : started.has(callId) ? "started" : "not_started";
    return { call_id: callId, tool: String(fn.name ?? record.name ?? ""), state };
  });
  return { step, calls };
}

function _interrupted(fork: PendingFork): InterruptedTurn {
  const { step, calls } = describeFork(fork.entries);
  return {
    fork: fork.fork,
    tape: fork.tape,
    owner: fork.owner,
    step,
    calls,
    entries: fork.entries,
  };
}

function _taken(fork: PendingFork, options: InterruptedOptions): boolean {
  return fork.alive === false || (fork.alive === null && options.includeUnknown === true);
}

/** The store's fork journal and the interrupted turns of `tape` in it; null: no journal. */
async function _findInterrupted(
  store: TapeStore,
  tape: string,
  options: InterruptedOptions,
): Promise<{ journal: ForkJournal; turns: InterruptedTurn[] } | null> {
  const journal = forkJournalOf(store);
  if (!journal) return null;
  const pending = await journal.journalPending(tape);
  return { journal, turns: pending.filter((fork) => _taken(fork, options)).map(_interrupted) };
}

/**
 * The interrupted turns of `tape` in `store`, oldest first: journals whose writer is gone (or,
 * with `includeUnknown`, cannot be told). A store without journals has none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore } from "@bub/core";
 * import { listInterruptedTurns } from "@bub/core/tape";
 * assert.deepEqual(await listInterruptedTurns(new InMemoryTapeStore(), "a__b"), []);
 * ```
 */
export async function listInterruptedTurns(
  store: TapeStore,
  tape: string,
  options: InterruptedOptions = {},
): Promise<InterruptedTurn[]> {
  return (await _findInterrupted(store, tape, options))?.turns ?? [];
}

/**
 * Adopts the interrupted turns of `tape`: for each, oldest first, its sidecar journals are
 * committed, then its entries and a `turn.interrupted` event `{fork, step, calls}` in one
 * commit (all or nothing: a crash meanwhile leaves it to the next adoption). Returns them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore } from "@bub/core";
 * import { adoptInterruptedTurns } from "@bub/core/tape";
 * assert.deepEqual(await adoptInterruptedTurns(new InMemoryTapeStore(), "a__b"), []);
 * ```
 */
export async function adoptInterruptedTurns(
  store: TapeStore,
  tape: string,
  options: InterruptedOptions = {},
): Promise<InterruptedTurn[]> {
  const found = await _findInterrupted(store, tape, options);
  if (!found) return [];
  const { journal, turns } = found;
  for (const turn of turns) {
    for (const sidecar of options.sidecarTapes ?? []) {
      await journal.journalCommit(sidecar, turn.fork);
    }
    const event = createEntry("event", {
      name: TURN_INTERRUPTED,
      data: { fork: turn.fork, step: turn.step, calls: turn.calls },
    });
    await journal.journalCommit(tape, turn.fork, [event]);
  }
  return turns;
}
