/**
 * The Chat SDK state of a cluster instance: the SDK's memory state, except the thread
 * subscriptions (a thread the bot answered a mention in gets its follow-ups without one), which
 * live in the cluster's PostgreSQL database (`bub_chat_subscriptions` in the tape store's
 * schema). A follow-up delivered to any instance then reaches Bub, which runs it once through
 * the cluster inbox.
 *
 * Only subscriptions need sharing: the SDK's locks and queues are not used (Bub handles messages
 * concurrently and queues per session itself), its message deduplication is backed by the
 * cluster inbox's, and a Slack retry marker missed on another instance only lets the redelivery
 * reach that deduplication. Bub's own PostgreSQL client (postgres.js) serves the table, so no
 * second client (`@chat-adapter/state-pg` needs `pg`) joins the cluster.
 *
 * @module
 */
import type { Lock, QueueEntry, StateAdapter } from "chat";
import type { PostgresTapeStore } from "../../tape/postgres_store.ts";

/** A {@link StateAdapter} sharing thread subscriptions through PostgreSQL. */
export class SharedSubscriptionsState implements StateAdapter {
  readonly #memory: StateAdapter;
  readonly #url: string;
  #store: PostgresTapeStore | null = null;

  /**
   * @param memory the state everything but subscriptions is kept in
   * @param url the `postgres://` URL of the cluster's tape store
   */
  constructor(memory: StateAdapter, url: string) {
    this.#memory = memory;
    this.#url = url;
  }

  /** Connects the memory state and the database (creating or migrating the tables). */
  async connect(): Promise<void> {
    await this.#memory.connect();
    if (this.#store !== null) return;
    const { PostgresTapeStore, pgStoreInternals } = await import("../../tape/postgres_store.ts");
    const store = new PostgresTapeStore(this.#url);
    try {
      await pgStoreInternals(store).open();
    } catch (error) {
      await store.close().catch(() => {});
      throw error;
    }
    this.#store = store;
  }

  /** Disconnects both. */
  async disconnect(): Promise<void> {
    const store = this.#store;
    this.#store = null;
    await store?.close().catch(() => {});
    await this.#memory.disconnect();
  }

  async #run<T>(
    what: string,
    query: (
      table: string,
      sql: { unsafe(q: string, p?: unknown[]): Promise<unknown[]> },
    ) => Promise<T>,
  ): Promise<T> {
    const store = this.#store;
    if (store === null) throw new Error(`Cannot ${what}: the chat state is not connected`);
    const { pgStoreInternals } = await import("../../tape/postgres_store.ts");
    const internals = pgStoreInternals(store);
    return await internals.retry(what, (sql) => query(internals.tables.chatSubscriptions, sql));
  }

  /** Follows `threadId` (every instance sees it). */
  async subscribe(threadId: string): Promise<void> {
    await this.#run(
      "subscribe to a chat thread",
      (table, sql) =>
        sql.unsafe(`INSERT INTO ${table} (thread) VALUES ($1) ON CONFLICT DO NOTHING`, [threadId]),
    );
  }

  /** Stops following `threadId`. */
  async unsubscribe(threadId: string): Promise<void> {
    await this.#run(
      "unsubscribe from a chat thread",
      (table, sql) => sql.unsafe(`DELETE FROM ${table} WHERE thread = $1`, [threadId]),
    );
  }

  /** True when any instance subscribed to `threadId`. */
  async isSubscribed(threadId: string): Promise<boolean> {
    const rows = await this.#run(
      "read a chat thread subscription",
      (table, sql) => sql.unsafe(`SELECT 1 FROM ${table} WHERE thread = $1`, [threadId]),
    );
    return rows.length > 0;
  }

  acquireLock(threadId: string, ttlMs: number): Promise<Lock | null> {
    return this.#memory.acquireLock(threadId, ttlMs);
  }

  extendLock(lock: Lock, ttlMs: number): Promise<boolean> {
    return this.#memory.extendLock(lock, ttlMs);
  }

  releaseLock(lock: Lock): Promise<void> {
    return this.#memory.releaseLock(lock);
  }

  forceReleaseLock(threadId: string): Promise<void> {
    return this.#memory.forceReleaseLock(threadId);
  }

  appendToList(
    key: string,
    value: unknown,
    options?: { maxLength?: number; ttlMs?: number },
  ): Promise<void> {
    return this.#memory.appendToList(key, value, options);
  }

  getList<T = unknown>(key: string): Promise<T[]> {
    return this.#memory.getList<T>(key);
  }

  get<T = unknown>(key: string): Promise<T | null> {
    return this.#memory.get<T>(key);
  }

  set<T = unknown>(key: string, value: T, ttlMs?: number): Promise<void> {
    return this.#memory.set(key, value, ttlMs);
  }

  setIfNotExists(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    return this.#memory.setIfNotExists(key, value, ttlMs);
  }

  delete(key: string): Promise<void> {
    return this.#memory.delete(key);
  }

  enqueue(threadId: string, entry: QueueEntry, maxSize: number): Promise<number> {
    return this.#memory.enqueue(threadId, entry, maxSize);
  }

  dequeue(threadId: string): Promise<QueueEntry | null> {
    return this.#memory.dequeue(threadId);
  }

  queueDepth(threadId: string): Promise<number> {
    return this.#memory.queueDepth(threadId);
  }
}
