/**
 * The tape store of a cluster instance: a {@link PostgresTapeStore} whose appends to a session's
 * tapes are fenced by the lease this instance holds (or last held) on that session, so an
 * instance that lost a session can never append to its tapes again.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { BubError } from "../../kernel/errors.ts";
import type { TapeEntry } from "../../tape/entry.ts";
import type { PostgresTapeStore, TapeLease } from "../../tape/postgres_store.ts";
import type { TapeQuery } from "../../tape/query.ts";
import type { TapeQuerySpec } from "../../tape/query_fields.ts";
import type { TapeStore } from "../../tape/store.ts";
import type { ForkJournal, PendingFork } from "../../tape/fork_journal.ts";

/** The session part of a session tape name (`md5(session)[0:16]`, see `sessionTapeName`). */
export function sessionHash(sessionId: string): string {
  return createHash("md5").update(sessionId, "utf8").digest("hex").slice(0, 16);
}

/**
 * Routes appends by tape name: a tape `<workspace>__<session hash>[__sidecar]` of a session this
 * instance has leased is appended with `{fence: lease}`; other tapes are appended as is.
 */
export class FencedTapeStore implements TapeStore, ForkJournal {
  /** The shared store. */
  readonly inner: PostgresTapeStore;
  #leases = new Map<string, TapeLease>();
  #lost = new Set<string>();

  /**
   * Creates the object.
   *
   * @param inner the store every instance of the cluster uses
   */
  constructor(inner: PostgresTapeStore) {
    this.inner = inner;
  }

  /** Fences the session's tapes with `lease` from now on (kept after the lease is lost). */
  fence(sessionId: string, lease: TapeLease): void {
    const hash = sessionHash(sessionId);
    this.#leases.set(hash, lease);
    this.#lost.delete(hash);
  }

  /**
   * Marks the session's lease `lease` lost (its turns' output must not reach the chat any more);
   * nothing when the session is fenced by a newer lease already (a late report of an old one).
   */
  markLost(sessionId: string, lease: TapeLease): void {
    this.#markLost(sessionHash(sessionId), lease);
  }

  #markLost(hash: string, lease: TapeLease): void {
    const current = this.#leases.get(hash);
    if (current && current.epoch === lease.epoch && current.owner === lease.owner) {
      this.#lost.add(hash);
    }
  }

  /** True after the session's lease was lost (until it is fenced with a new one). */
  isLost(sessionId: string): boolean {
    return this.#lost.has(sessionHash(sessionId));
  }

  /** The lease fencing `tape`, or null. */
  leaseOf(tape: string): TapeLease | null {
    const hash = tape.split("__")[1];
    return hash === undefined ? null : this.#leases.get(hash) ?? null;
  }

  /** Same as the inner store's. */
  async listTapes(): Promise<string[]> {
    return await this.inner.listTapes();
  }

  /** Same as the inner store's. */
  async reset(tape: string): Promise<void> {
    await this.inner.reset(tape);
  }

  /** Same as the inner store's. */
  async fetchAll(query: TapeQuerySpec): Promise<TapeEntry[]> {
    return await this.inner.fetchAll(query as TapeQuery);
  }

  /** Appends one entry, fenced when the tape belongs to a leased session. */
  async append(tape: string, entry: TapeEntry): Promise<void> {
    await this.appendMany(tape, [entry]);
  }

  /** Appends entries in one statement, fenced when the tape belongs to a leased session. */
  async appendMany(tape: string, entries: readonly TapeEntry[]): Promise<void> {
    const fence = this.leaseOf(tape);
    try {
      await this.inner.appendMany(tape, entries, fence ? { fence } : {});
    } catch (error) {
      const hash = tape.split("__")[1];
      if (fence && hash !== undefined && BubError.isInstance(error)) {
        if (error.details?.reason === "lease_lost") this.#markLost(hash, fence);
      }
      throw error;
    }
  }

  /**
   * The inner store's compare-and-swap append (see `TapeStore.appendIfLast`), unfenced: the
   * newest-id check under the tape row's lock orders racing deciders across instances.
   */
  async appendIfLast(
    tape: string,
    entries: readonly TapeEntry[],
    lastId: number,
  ): Promise<boolean> {
    return await this.inner.appendIfLast(tape, entries, lastId);
  }

  /** Appends to a fork's journal, fenced when the tape belongs to a leased session. */
  async journalAppend(tape: string, fork: string, entries: readonly TapeEntry[]): Promise<void> {
    const fence = this.leaseOf(tape);
    await this.#fenced(
      tape,
      fence,
      () => this.inner.journalAppend(tape, fork, entries, fence ? { fence } : {}),
    );
  }

  /** Commits a fork's journal, fenced when the tape belongs to a leased session. */
  async journalCommit(tape: string, fork: string, extra?: readonly TapeEntry[]): Promise<void> {
    const fence = this.leaseOf(tape);
    await this.#fenced(
      tape,
      fence,
      () => this.inner.journalCommit(tape, fork, extra, fence ? { fence } : {}),
    );
  }

  /** Same as the inner store's. */
  async journalDiscard(tape: string, fork: string): Promise<void> {
    await this.inner.journalDiscard(tape, fork);
  }

  /** The tapes with a journal. */
  async journalTapes(): Promise<string[]> {
    return (await this.inner.journalTapes?.()) ?? [];
  }

  /**
   * The inner store's; on a tape whose session this instance leases, a journal whose writer
   * cannot be told (another machine's) is a dead one: the lease fences its writer out, so it is
   * an interrupted turn to resume.
   */
  async journalPending(tape: string): Promise<PendingFork[]> {
    const pending = await this.inner.journalPending(tape);
    const hash = tape.split("__")[1];
    const leased = this.leaseOf(tape) !== null && hash !== undefined && !this.#lost.has(hash);
    return leased
      ? pending.map((fork) => (fork.alive === null ? { ...fork, alive: false } : fork))
      : pending;
  }

  async #fenced(tape: string, fence: TapeLease | null, op: () => Promise<void>): Promise<void> {
    try {
      await op();
    } catch (error) {
      const hash = tape.split("__")[1];
      if (fence && hash !== undefined && BubError.isInstance(error)) {
        if (error.details?.reason === "lease_lost") this.#markLost(hash, fence);
      }
      throw error;
    }
  }

  /** Same as the inner store's. */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    return await this.inner.latestEvents(tape, names);
  }
}
