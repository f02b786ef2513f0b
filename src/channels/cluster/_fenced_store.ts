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

/** The session part of a session tape name (`md5(session)[0:16]`, see `sessionTapeName`). */
export function sessionHash(sessionId: string): string {
  return createHash("md5").update(sessionId, "utf8").digest("hex").slice(0, 16);
}

/**
 * Routes appends by tape name: a tape `<workspace>__<session hash>[__sidecar]` of a session this
 * instance has leased is appended with `{fence: lease}`; other tapes are appended as is.
 */
export class FencedTapeStore implements TapeStore {
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

  /** Marks the session's lease lost (its turns' output must not reach the chat any more). */
  markLost(sessionId: string): void {
    this.#lost.add(sessionHash(sessionId));
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
        if (error.details?.reason === "lease_lost") this.#lost.add(hash);
      }
      throw error;
    }
  }

  /** Same as the inner store's. */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    return await this.inner.latestEvents(tape, names);
  }
}
