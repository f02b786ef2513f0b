/**
 * `PostgresLeader`: elects one instance of a cluster for a job only one may do at a time (the
 * Telegram long poller of a bot token): a session-level advisory lock held on a connection of its
 * own, so it is released when the holder resigns (or disposes of it) or its process dies.
 *
 * @module
 */
import { BubError } from "../kernel/errors.ts";
import type { PgSql } from "./postgres/_client.ts";
import { pgStoreInternals, type PostgresTapeStore } from "./postgres_store.ts";

/**
 * One candidate for the leadership of `name` (per database and schema). Call
 * {@link PostgresLeader.tryLead} until it returns true; check {@link PostgresLeader.stillLeading}
 * while leading (a dropped connection loses the lock).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresLeader, PostgresTapeStore } from "@bub/core/tape";
 * const url = Deno.env.get("BUB_TEST_POSTGRES_URL");
 * if (url) {
 *   await using store = new PostgresTapeStore(url, { schema: `doc_${crypto.randomUUID().slice(0, 8)}` });
 *   await using leader = new PostgresLeader(store, "telegram-poller");
 *   assert.ok(await leader.tryLead());
 * }
 * ```
 */
export class PostgresLeader implements AsyncDisposable {
  /** What is led. */
  readonly name: string;
  #store: PostgresTapeStore;
  #connection: PgSql | null = null;
  /** A follower's connection, kept between attempts. */
  #candidate: PgSql | null = null;
  #pid = 0;

  /**
   * Creates the object; nothing is locked before {@link tryLead}.
   *
   * @param store the store whose database elects
   * @param name the job (e.g. `telegram-poller:<bot id>`)
   */
  constructor(store: PostgresTapeStore, name: string) {
    pgStoreInternals(store);
    if (typeof name !== "string" || name === "") {
      throw new TypeError("Cannot create PostgresLeader: name must be a non-empty string");
    }
    this.#store = store;
    this.name = name;
  }

  /** True while this candidate holds the lock (as far as it knows). */
  get leading(): boolean {
    return this.#connection !== null;
  }

  #key(): string {
    return `bub_leader:${this.#store.schema}:${this.name}`;
  }

  /**
   * Takes the leadership when nobody holds it; true when this candidate leads. A follower keeps
   * its connection and asks again on it (no new connection per attempt); a failed one is
   * replaced at the next attempt.
   */
  async tryLead(): Promise<boolean> {
    if (this.#connection) return true;
    const connection = this.#candidate ??= await pgStoreInternals(this.#store).connectOne();
    let rows;
    try {
      rows = await connection.unsafe(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok, pg_backend_pid() AS pid",
        [this.#key()],
      );
    } catch (error) {
      if (this.#candidate === connection) this.#candidate = null;
      await connection.end({ timeout: 0 }).catch(() => {});
      throw new BubError("temporary", `Cannot elect a leader for ${this.name}: ${error}`, {
        name: this.name,
      }, { cause: error });
    }
    if (rows[0]?.ok !== true || this.#candidate !== connection) return false;
    this.#candidate = null;
    this.#connection = connection;
    this.#pid = Number(rows[0].pid);
    return true;
  }

  /** Asks the server whether the lock is still held; false (no longer leading) when not. */
  async stillLeading(): Promise<boolean> {
    const connection = this.#connection;
    if (!connection) return false;
    // Asked on the store's pool: a query on a connection whose backend was terminated can
    // fail inside postgres.js instead of rejecting.
    const rows = await (await pgStoreInternals(this.#store).open()).unsafe(
      `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $1
      AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($2, 0)`,
      [this.#pid, this.#key()],
    );
    if (rows.length > 0) return true;
    this.#connection = null;
    await connection.end({ timeout: 0 }).catch(() => {});
    return false;
  }

  /** Gives the leadership up (and a follower's connection). */
  async resign(): Promise<void> {
    const candidate = this.#candidate;
    this.#candidate = null;
    await candidate?.end({ timeout: 0 }).catch(() => {});
    const connection = this.#connection;
    this.#connection = null;
    if (!connection) return;
    try {
      await connection.unsafe("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [this.#key()]);
    } catch {
      // A dead connection holds no lock.
    } finally {
      await connection.end({ timeout: 1 }).catch(() => {});
    }
  }

  /** Same as {@link resign}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.resign();
  }
}
