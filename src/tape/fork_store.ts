/**
 * `ForkTapeStore`: a store layered over a parent for one tape and its sidecar tapes (the
 * "managed" tapes), buffered until `mergeBack()` (§5.9). Over a store with a fork journal (file,
 * SQLite, PostgreSQL; see `fork_journal.ts`) every buffered append is also written to the fork's
 * journal before it resolves, and the merge commits the journal (all or nothing); reads are
 * answered from the parent and the buffer in memory (`_fork_reads.ts`). Media never persists:
 * every append keeps only the text parts of a payload (`media_redaction.ts`).
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { isRecord } from "../_internal/object.ts";
import { getLogger } from "../_internal/log.ts";
import { redactKnownSecrets } from "../_internal/secrets.ts";
import { createEntry, type TapeEntry } from "./entry.ts";
import { appendStoredCopies, InMemoryTapeStore } from "./memory_store.ts";
import type { TapeQuery } from "./query.ts";
import { appendAll, type TapeStore, toAsyncTapeStore } from "./store.ts";
import { latestEvents } from "./latest_events.ts";
import { redactPayload } from "./media_redaction.ts";
import { fetchManaged, latestManagedEvents } from "./_fork_reads.ts";
import { provideForkLayers } from "./store/_live_view.ts";
import { keepEntryText } from "./store/_entry_text.ts";
import {
  type ForkJournal,
  forkJournalOf,
  isDeferrableEntry,
  markForkDone,
  markForkLive,
} from "./fork_journal.ts";

const logger = getLogger(["bub", "tape"]);

export { redactPayload };

/**
 * Options of {@link ForkTapeStore}.
 *
 * @example
 * ```ts
 * import { InMemoryTapeStore } from "@bub/core";
 * import { ForkTapeStore, type ForkTapeStoreOptions } from "@bub/core/tape";
 * const options: ForkTapeStoreOptions = { tape: "cli-local", sidecarTapes: ["cli-local__sidecar__spill"] };
 * const fork = new ForkTapeStore(new InMemoryTapeStore(), options);
 * ```
 */
export interface ForkTapeStoreOptions {
  /** The main tape. */
  tape: string;
  /** Its sidecar tapes, merged before the main tape. */
  sidecarTapes?: readonly string[];
  /** The fork's id, its journal's name (default a random UUID). */
  id?: string;
  /** Write a journal when the parent has one (default true). */
  journal?: boolean;
  /**
   * Entries whose append need not be durable by itself (default {@link isDeferrableEntry}): they
   * are journaled with the next append that must be, or with the merge.
   */
  deferrable?: (entry: TapeEntry) => boolean;
}

/**
 * A copy-on-write view of the parent store for the managed tapes. Other tapes go straight
 * to the parent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, TapeQuery } from "@bub/core";
 * import { ForkTapeStore, messageEntry } from "@bub/core/tape";
 * const parent = new InMemoryTapeStore();
 * const fork = new ForkTapeStore(parent, { tape: "a__b" });
 * await fork.append("a__b", messageEntry({ role: "user", content: "hi" }));
 * assert.ok((await new TapeQuery("a__b", parent).all()).length === 0);
 * await fork.mergeBack();
 * assert.ok((await new TapeQuery("a__b", parent).all()).length === 1);
 * ```
 */
export class ForkTapeStore implements TapeStore {
  /** The parent store. */
  readonly parent: TapeStore;
  /** The main tape. */
  readonly tape: string;
  /** The managed sidecar tapes. */
  readonly sidecarTapes: readonly string[];
  #local = new InMemoryTapeStore();
  #reset = new Set<string>();
  /** The fork's id (its journal's name). */
  readonly id: string;
  #journal: ForkJournal | null;
  #deferrable: (entry: TapeEntry) => boolean;
  /** Per managed tape: how many of its buffered entries are journaled. */
  #journaled = new Map<string, number>();
  /** Managed appends in order (the journal's order is the buffer's). */
  #queue: Promise<void> = Promise.resolve();
  /** The parent is a plain memory store: the merge hands it the buffer's copies as they are. */
  #direct: boolean;

  /**
   * Creates the object.
   *
   * @param parent the store merged into
   * @param options the managed tapes
   */
  constructor(parent: TapeStore, options: ForkTapeStoreOptions) {
    this.parent = toAsyncTapeStore(parent);
    this.tape = options.tape;
    this.sidecarTapes = [...(options.sidecarTapes ?? [])];
    this.id = options.id ?? randomUUID();
    this.#journal = options.journal === false ? null : forkJournalOf(this.parent);
    if (this.#journal) markForkLive(this.id);
    this.#deferrable = options.deferrable ?? isDeferrableEntry;
    // A plain memory parent takes the buffer's frozen copies as they are; any other parent gets
    // the buffer's entries with their text, which the merge writes as is (see `store/_entry_text.ts`).
    this.#direct = Object.getPrototypeOf(this.parent) === InMemoryTapeStore.prototype;
    if (!this.#direct) keepEntryText(this.#local);
    // Incremental contexts read a managed tape's layer (see `store/_live_view.ts`).
    provideForkLayers(
      this,
      (tape) =>
        this.#managed(tape)
          ? {
            parent: this.parent,
            reset: this.#reset.has(tape),
            local: this.#local.read(tape) ?? [],
          }
          : null,
    );
  }

  #managed(tape: string): boolean {
    return tape === this.tape || this.sidecarTapes.includes(tape);
  }

  /** The parent's tapes. */
  async listTapes(): Promise<string[]> {
    return await this.parent.listTapes();
  }

  /** The fork's journal, when its parent has one. */
  get journal(): ForkJournal | null {
    return this.#journal;
  }

  /**
   * Managed: clears the buffer and hides the parent's entries until merge; else resets the
   * parent. A reset tape's journal is dropped: the rest of its fork stays in memory.
   */
  async reset(tape: string): Promise<void> {
    if (!this.#managed(tape)) return await this.parent.reset(tape);
    await this.#inOrder(async () => {
      if (this.#journal && this.#journaled.has(tape)) {
        await this.#journal.journalDiscard(tape, this.id);
      }
      this.#journaled.delete(tape);
      await this.#local.reset(tape);
      this.#reset.add(tape);
    });
  }

  #inOrder<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn);
    this.#queue = run.then(() => {}, () => {});
    return run;
  }

  /** Appends with media redacted; managed tapes are buffered. */
  async append(tape: string, entry: TapeEntry): Promise<void> {
    await this.appendMany(tape, [entry]);
  }

  /**
   * Appends several entries in order, with media redacted, as one write: entries appended
   * concurrently (e.g. the spills of parallel tool calls) never land between them.
   */
  async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
    const redacted = entries.map((entry) => {
      if (!isRecord(entry?.payload)) return entry;
      const payload = redactPayload(entry.payload);
      return payload === entry.payload ? entry : { ...entry, payload };
    });
    if (!this.#managed(tape)) return await appendAll(this.parent, tape, redacted);
    const journal = this.#journal;
    if (!journal || redacted.length === 0) return await appendAll(this.#local, tape, redacted);
    await this.#inOrder(async () => {
      if (this.#reset.has(tape)) return await appendAll(this.#local, tape, redacted);
      // Checked and copied by the buffer first (a bad entry journals nothing), then journaled:
      // the append resolves once the journal holds it.
      const before = this.#local.read(tape)?.length ?? 0;
      await appendAll(this.#local, tape, redacted);
      if (redacted.every(this.#deferrable)) return; // journaled with the next record
      // Deferred entries before these go with them.
      const done = this.#journaled.get(tape) ?? 0;
      const copies = (this.#local.read(tape) ?? []).slice(done);
      try {
        await journal.journalAppend(tape, this.id, copies);
      } catch (error) {
        // Not journaled: the buffer forgets it too.
        const kept = (this.#local.read(tape) ?? []).slice(0, before);
        await this.#local.reset(tape);
        await appendAll(this.#local, tape, kept);
        throw error;
      }
      this.#journaled.set(tape, done + copies.length);
    });
  }

  /** Parent results (unless reset here) followed by the buffered entries (§5.9). */
  async fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    if (!this.#managed(query.tape)) return await this.parent.fetchAll(query);
    return await fetchManaged(this.#parentOf(query.tape), this.#buffered(query.tape), query);
  }

  /** The newest event of each of `names`: buffered ones first, then the parent's (§5.9 order). */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    if (!this.#managed(tape)) return await latestEvents(this.parent, tape, names);
    return await latestManagedEvents(this.#parentOf(tape), tape, this.#buffered(tape), names);
  }

  /** The parent, where a managed tape's entries before the fork are; null once it was reset. */
  #parentOf(tape: string): TapeStore | null {
    return this.#reset.has(tape) ? null : this.parent;
  }

  #buffered(tape: string): readonly TapeEntry[] {
    return this.#local.read(tape) ?? [];
  }

  /** True when nothing is buffered and nothing was reset. */
  get isEmpty(): boolean {
    return this.#reset.size === 0 &&
      [this.tape, ...this.sidecarTapes].every((tape) => !this.#local.read(tape)?.length);
  }

  async #mergeTape(tape: string): Promise<void> {
    if (this.#reset.has(tape)) await this.parent.reset(tape);
    const local = this.#local.read(tape) ?? [];
    const journaled = this.#journaled.get(tape);
    if (this.#journal && journaled !== undefined) {
      // The journal and what was not journaled (a merge's own events) commit as one batch.
      await this.#journal.journalCommit(tape, this.id, local.slice(journaled));
      this.#journaled.delete(tape);
      await this.#local.reset(tape);
      return;
    }
    if (this.#direct) appendStoredCopies(this.parent as InMemoryTapeStore, tape, local);
    else await appendAll(this.parent, tape, local);
    this.#reset.delete(tape);
    await this.#local.reset(tape);
  }

  /**
   * Writes the buffers into the parent: each sidecar tape first (a failure is logged and
   * recorded as a `sidecar.merge` error event on the main tape), then the main tape.
   */
  async mergeBack(): Promise<void> {
    await this.#queue;
    for (const tape of this.sidecarTapes) {
      try {
        await this.#mergeTape(tape);
      } catch (error) {
        const message = redactKnownSecrets(error instanceof Error ? error.message : String(error));
        logger.error("tape.sidecar_merge_failed {tape}: {error}", { tape, error: message });
        await this.#local.reset(tape);
        this.#reset.delete(tape);
        if (this.#journaled.delete(tape)) {
          // Its journal goes with its buffer: the error event says what was lost.
          await this.#journal?.journalDiscard(tape, this.id).catch(() => {});
        }
        await this.#local.append(
          this.tape,
          createEntry("event", {
            name: "sidecar.merge",
            data: { tape, status: "error", error: message },
          }, { context: false }),
        );
      }
    }
    await this.#mergeTape(this.tape);
    markForkDone(this.id);
  }

  /** Drops every buffered entry, journal and reset mark. */
  async discard(): Promise<void> {
    await this.#queue;
    for (const tape of [this.tape, ...this.sidecarTapes]) {
      if (this.#journal && this.#journaled.delete(tape)) {
        await this.#journal.journalDiscard(tape, this.id);
      }
      await this.#local.reset(tape);
    }
    this.#reset.clear();
    markForkDone(this.id);
  }
}
