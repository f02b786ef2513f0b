/**
 * The fork journal: an optional store capability that makes a turn's in-flight fork durable.
 * A {@link ForkTapeStore} over a store that has it writes every append to the fork's journal
 * (on disk when the append resolves) and merges by {@link ForkJournal.journalCommit}, which
 * moves the journal into the tape and drops it atomically: after a crash at any point the tape
 * holds none or all of the fork's entries, never a part, never twice. A journal left behind by
 * a dead process is an interrupted turn (see `interrupted.ts`).
 *
 * @module
 */
import { hostname } from "node:os";
import process from "node:process";
import { BubError } from "../kernel/errors.ts";
import type { TapeEntry } from "./entry.ts";
import type { TapeStore } from "./store.ts";
import { identityOf, ownIdentity, type ProcessIdentity } from "../_internal/process_identity.ts";

/**
 * A fork's journal that is still there (not committed, not discarded).
 *
 * @example
 * ```ts
 * import type { PendingFork } from "@bub/core/tape";
 * const pending: PendingFork = { fork: "f1", tape: "a__b", owner: "host/1/2/boot", alive: false, entries: [] };
 * ```
 */
export interface PendingFork {
  /** The fork id. */
  fork: string;
  /** The tape the fork merges into. */
  tape: string;
  /** Who wrote it: `<host>/<pid>/<start ticks>/<boot id>` (see {@link ownerTag}). */
  owner: string;
  /** Whether its writer is alive: true, false, or null when the store cannot tell. */
  alive: boolean | null;
  /** The journaled entries, in order (ids 1..n, fork-local). */
  entries: TapeEntry[];
}

/**
 * The capability of a store that can keep a fork's entries durable until it merges.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore } from "@bub/core";
 * import { forkJournalOf } from "@bub/core/tape";
 * assert.equal(forkJournalOf(new InMemoryTapeStore()), null); // memory forks stay in memory
 * ```
 */
export interface ForkJournal {
  /** Appends `entries` to the journal of `fork` on `tape` (made on first use); durable when it resolves. */
  journalAppend(tape: string, fork: string, entries: readonly TapeEntry[]): Promise<void>;
  /**
   * Appends the journal's entries, then `extra`, to `tape` and drops the journal, atomically. A
   * journal already committed (or never made) commits nothing: retrying is safe.
   */
  journalCommit(tape: string, fork: string, extra?: readonly TapeEntry[]): Promise<void>;
  /** Drops the journal of `fork` (nothing when there is none). */
  journalDiscard(tape: string, fork: string): Promise<void>;
  /** The journals of `tape` still there, oldest first, with their entries. */
  journalPending(tape: string): Promise<PendingFork[]>;
  /**
   * Optional: the tapes that have a journal (a session's first turn journals before its tape
   * exists, so `listTapes` may not name it). Sorted.
   */
  journalTapes?(): Promise<string[]>;
}

/**
 * The fork journal of `store`, or null when it has none (memory and sync stores).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { FileTapeStore } from "@bub/core";
 * import { forkJournalOf } from "@bub/core/tape";
 * await using store = new FileTapeStore(mkdtempSync(join(tmpdir(), "tapes-")));
 * assert.ok(forkJournalOf(store) !== null);
 * ```
 */
export function forkJournalOf(store: TapeStore): ForkJournal | null {
  const candidate = store as Partial<ForkJournal>;
  return typeof candidate.journalAppend === "function" &&
      typeof candidate.journalCommit === "function" &&
      typeof candidate.journalDiscard === "function" &&
      typeof candidate.journalPending === "function"
    ? candidate as ForkJournal
    : null;
}

const LIVE_FORKS = new Set<string>();

/** Marks fork `id` as open in this process (its journal is not an interrupted turn). */
export function markForkLive(id: string): void {
  LIVE_FORKS.add(id);
}

/** Marks fork `id` as closed in this process. */
export function markForkDone(id: string): void {
  LIVE_FORKS.delete(id);
}

/** True while fork `id` is open in this process. */
export function isForkLive(id: string): boolean {
  return LIVE_FORKS.has(id);
}

/**
 * This process as a journal's owner: `<host>/<pid>/<start ticks>/<boot id>` (`-` for unknown
 * parts; `/` in the host name is replaced).
 */
export function ownerTag(): string {
  const own = ownIdentity();
  const host = hostname().replaceAll("/", "_") || "-";
  return `${host}/${own.pid}/${own.startTicks ?? "-"}/${own.bootId ?? "-"}`;
}

function _parseTag(tag: string): (ProcessIdentity & { host: string }) | null {
  const [host, pid, ticks, boot] = tag.split("/");
  const n = Number(pid);
  if (host === undefined || !Number.isInteger(n) || n <= 0) return null;
  return {
    host,
    pid: n,
    startTicks: ticks && ticks !== "-" ? ticks : null,
    bootId: boot && boot !== "-" ? boot : null,
  };
}

function _pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string } | null)?.code === "EPERM";
  }
}

/**
 * Whether the writer `owner` (an {@link ownerTag}) of journal `fork` is alive: this process only
 * while the fork is open here; another process of this machine when its PID runs with the same
 * start time and boot (a tag from before a reboot is dead; without procfs, when the PID runs);
 * null for a tag of another machine.
 */
export function ownerAlive(owner: string, fork: string): boolean | null {
  const tag = _parseTag(owner);
  if (tag === null) return null;
  if (tag.host !== (hostname().replaceAll("/", "_") || "-")) return null;
  const own = ownIdentity();
  if (tag.bootId !== null && own.bootId !== null && tag.bootId !== own.bootId) return false;
  if (tag.pid === own.pid && tag.startTicks === own.startTicks) return isForkLive(fork);
  if (own.startTicks === null) return _pidRuns(tag.pid); // no procfs: the PID is all there is
  const now = identityOf(tag.pid);
  if (now.startTicks === null) return false;
  return tag.startTicks === null || now.startTicks === tag.startTicks;
}

const FORK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks a fork id (letters, digits, `_`, `-`; 1–64 characters). */
export function validateForkId(fork: string): void {
  if (typeof fork !== "string" || !FORK_ID.test(fork)) {
    throw new BubError(
      "invalid_input",
      `Invalid fork id ${JSON.stringify(fork)}: expected 1-64 letters, digits, '_' or '-'`,
      { fork: String(fork) },
    );
  }
}

/** Events a resume needs on disk the moment they happen (see {@link isDeferrableEntry}). */
const AT_ONCE_EVENTS: ReadonlySet<string> = new Set([
  "tool.start",
  "tool.end",
  "turn.interrupted",
  "turn.resumed",
]);

/**
 * False for what a resume needs on disk the moment it happens, which a fork journals at once: a
 * `tool_call` entry (the model asked for tools: on disk before any runs) and the `tool.start`,
 * `tool.end`, `turn.interrupted` and `turn.resumed` events (a tool's effects begin and end).
 * Everything else (a model call's record, the loop's markers, anchors, other events) is
 * journaled with the next such record or by the merge instead of paying a flush (a PostgreSQL
 * transaction) of its own: a turn that answers without tools is written once, by its merge, as
 * before, and a crash before that merge costs at most its last model call again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createEntry, isDeferrableEntry } from "@bub/core/tape";
 * assert.ok(isDeferrableEntry(createEntry("event", { name: "loop.step", data: {} })));
 * assert.ok(!isDeferrableEntry(createEntry("event", { name: "tool.start", data: {} })));
 * assert.ok(!isDeferrableEntry(createEntry("tool_call", { calls: [] })));
 * ```
 */
export function isDeferrableEntry(entry: TapeEntry): boolean {
  if (entry.kind === "tool_call") return false;
  return entry.kind !== "event" || !AT_ONCE_EVENTS.has(entry.payload?.name as string);
}
