/**
 * `Tape`: a scoped view of one tape in a store, with anchors, handoffs, context reading,
 * sidecars, reset/archive and forks (§5.7). Its options are `tape_options.ts`.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { BubError } from "../kernel/errors.ts";
import { sidecarTapeName, type TapeContext, type TapeSidecar } from "../kernel/tape_context.ts";
import { buildQuery, type ChatMessage, contextVisible, defaultTapeContext } from "./context.ts";
import { anchorEntry, createEntry, type TapeEntry, type TapeMeta } from "./entry.ts";
import { ForkTapeStore } from "./fork_store.ts";
import { listInterruptedTurns } from "./interrupted.ts";
import { latestEvents } from "./latest_events.ts";
import { incrementalMessages } from "./_context_cache.ts";
import { archiveSidecar, resetSidecar, resetTape } from "./_lifecycle.ts";
import { buildChatEntries, type RecordChatOptions, type TapeInfo, tapeInfo } from "./info.ts";
import { sessionTapeName } from "./naming.ts";
import { TapeQuery } from "./query.ts";
import { appendAll, type TapeStore, toAsyncTapeStore } from "./store.ts";
import type { HandoffOptions, TapeOptions } from "./tape_options.ts";

export type { HandoffOptions, RecordChatOptions, TapeInfo, TapeOptions };

/**
 * One tape of a store, scoped by name. Immutable: `withContext`, `scoped` and
 * `sessionTape` return new tapes sharing the store and sidecars.
 *
 * @example Record a handoff and read the context back
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { messageEntry } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("a__b");
 * await tape.ensureBootstrapAnchor();
 * await tape.append(messageEntry({ role: "user", content: "hi" }));
 * assert.ok((await tape.readMessages()).length === 1);
 * ```
 */
export class Tape implements AsyncDisposable {
  /** The store (async). */
  readonly store: TapeStore;
  /** The context used by {@link readMessages}. */
  readonly context: TapeContext;
  /** Mounted sidecars. */
  readonly sidecars: readonly TapeSidecar[];
  /** Archive directory, or null. */
  readonly archivePath: string | null;
  /** The clock. */
  readonly clock: () => Date;
  #name: string | null;
  #dispose: (() => Promise<void>) | null = null;

  /**
   * Creates the object.
   *
   * @param options store, name, context, sidecars, archive path
   */
  constructor(options: TapeOptions) {
    this.store = toAsyncTapeStore(options.store);
    this.#name = options.name ?? null;
    this.context = options.context ?? defaultTapeContext();
    const seen = new Set<string>();
    this.sidecars = (options.sidecars ?? []).filter((sidecar) => {
      if (typeof sidecar?.name !== "string" || seen.has(sidecar.name)) return false;
      seen.add(sidecar.name);
      return true;
    });
    this.archivePath = options.archivePath ?? null;
    this.clock = options.clock ?? (() => new Date());
  }

  /** The tape name; throws when the tape is not scoped. */
  get name(): string {
    if (this.#name === null) {
      throw new BubError(
        "invalid_input",
        "Tape is not scoped: call scoped(name) or sessionTape() first",
      );
    }
    return this.#name;
  }

  /** True when the tape has a name. */
  get isScoped(): boolean {
    return this.#name !== null;
  }

  #copy(changes: Partial<TapeOptions>): Tape {
    return new Tape({
      store: this.store,
      name: this.#name,
      context: this.context,
      sidecars: this.sidecars,
      archivePath: this.archivePath,
      clock: this.clock,
      ...changes,
    });
  }

  /** The same tape with another context. */
  withContext(context: TapeContext): Tape {
    return this.#copy({ context });
  }

  /** This store's tape `name` (optionally with another context). */
  scoped(name: string, context?: TapeContext): Tape {
    return this.#copy({ name, context: context ?? this.context });
  }

  /** The session tape of `sessionId` in `workspace` (§5.3). */
  sessionTape(sessionId: string, workspace: string, context?: TapeContext): Tape {
    return this.scoped(sessionTapeName(sessionId, workspace), context);
  }

  /** A query over this tape. */
  query(): TapeQuery {
    return new TapeQuery(this.name, this.store);
  }

  /** The mounted sidecar `name`, or null. */
  getSidecar(name: string): TapeSidecar | null {
    return this.sidecars.find((sidecar) => sidecar.name === name) ?? null;
  }

  /** The physical tape of mounted sidecar `name`; throws when it is not mounted. */
  sidecarTapeName(name: string): string {
    if (!this.getSidecar(name)) {
      throw new BubError(
        "not_found",
        `Tape sidecar '${name}' is not mounted on tape ${JSON.stringify(this.#name)}`,
        {
          tape: this.#name,
          sidecar: name,
        },
      );
    }
    return sidecarTapeName(this.name, name);
  }

  /** Appends one entry to this tape. */
  async append(entry: TapeEntry): Promise<void> {
    await this.store.append(this.name, entry);
  }

  /** The newest `event` entry of each of `names`, in tape order, read from the tape's end. */
  async latestEvents(names: readonly string[]): Promise<TapeEntry[]> {
    return await latestEvents(this.store, this.name, names);
  }

  /** Appends entries in order (one commit when the store supports it). */
  async appendMany(entries: readonly TapeEntry[]): Promise<void> {
    await appendAll(this.store, this.name, entries);
  }

  /**
   * Counts and token usage (§5.7, §4.8), and the turns of this tape a crash interrupted that
   * can be resumed (read from the store under a fork).
   */
  async info(): Promise<TapeInfo> {
    const entries = await this.query().all();
    const store = this.store instanceof ForkTapeStore ? this.store.parent : this.store;
    const turns = await listInterruptedTurns(store, this.name);
    return tapeInfo(this.name, entries, turns.map(({ fork, step }) => ({ fork, step })));
  }

  /**
   * Hands off to `session/start {owner: "human"}` when the tape has no anchor yet; the entries'
   * meta name `sessionId` when given (tape names are one-way hashes: the meta lets a reader of
   * the store, such as the editor's session list, find a tape's session; meta stays out of the
   * model's context).
   */
  async ensureBootstrapAnchor(sessionId?: string): Promise<void> {
    const anchors = await this.query().kinds("anchor").limit(1).all();
    if (anchors.length === 0) {
      const meta = sessionId ? { session_id: sessionId } : {};
      await this.handoff({ name: "session/start", state: { owner: "human" }, meta });
    }
  }

  /** The last `limit` anchors as `{name, state}` (name `-` when missing). */
  async anchors(limit = 20): Promise<{ name: string; state: Record<string, unknown> }[]> {
    const anchors = await this.query().kinds("anchor").all();
    return anchors.slice(Math.max(0, anchors.length - limit)).map((entry) => ({
      name: typeof entry.payload.name === "string" && entry.payload.name ? entry.payload.name : "-",
      state: isRecord(entry.payload.state) ? entry.payload.state : {},
    }));
  }

  /** Runs a query. */
  async search(query: TapeQuery): Promise<TapeEntry[]> {
    return await query.all();
  }

  /** Appends `event {name, data}`. */
  async appendEvent(
    name: string,
    data: Record<string, unknown>,
    meta: TapeMeta = {},
  ): Promise<void> {
    if (!isRecord(data)) {
      throw new TypeError(
        `Cannot append event ${JSON.stringify(name)} to tape ${
          JSON.stringify(this.#name)
        }: data must be an object`,
      );
    }
    await this.store.append(this.name, createEntry("event", { name, data: { ...data } }, meta));
  }

  /**
   * The model context: the context's query, minus `context: false` entries, selected. With the
   * builtin selector (or none) on a memory, file or fork store, the selection is kept and
   * extended with the entries appended since the last read instead of rebuilt.
   */
  async readMessages(): Promise<ChatMessage[]> {
    const kept = await incrementalMessages(this.store, this.name, this.context);
    if (kept !== null) return kept;
    const entries = contextVisible(await buildQuery(this.context, this.query()).all());
    if (this.context.select) return await this.context.select(entries as never, this.context);
    return entries.filter((entry) => entry.kind === "message").map((entry) => ({
      ...entry.payload,
    }));
  }

  /** Appends `anchor {name, state?}` then `event handoff {name, state}`, with the same meta. */
  async handoff(options: HandoffOptions): Promise<[TapeEntry, TapeEntry]> {
    if (typeof options?.name !== "string" || options.name === "") {
      throw new TypeError(
        `Cannot hand off on tape ${JSON.stringify(this.#name)}: name must be a non-empty string`,
      );
    }
    const meta = options.meta ?? {};
    const anchor = anchorEntry(options.name, options.state, meta);
    const event = createEntry("event", {
      name: "handoff",
      data: { name: options.name, state: options.state ?? {} },
    }, meta);
    await this.appendMany([anchor, event]);
    return [anchor, event];
  }

  /** Records one model call (§4.7). */
  async recordChat(options: RecordChatOptions): Promise<void> {
    await appendAll(this.store, this.name, buildChatEntries(options));
  }

  /** Resets the tape (optionally archiving it and its sidecars first); `ok` or `Archived: <path>`. */
  async reset(options: { archive?: boolean } = {}): Promise<string> {
    return await resetTape(this, options.archive ?? false);
  }

  /** Archives one sidecar tape; records `sidecar.archive`. */
  async archiveSidecar(name: string, options: { reason?: string } = {}): Promise<string> {
    this.sidecarTapeName(name);
    return await archiveSidecar(this, name, options.reason ?? "manual");
  }

  /** Resets one sidecar tape (optionally archiving it first); records the lifecycle events. */
  async resetSidecar(
    name: string,
    options: { archive?: boolean; reason?: string } = {},
  ): Promise<string> {
    this.sidecarTapeName(name);
    return await resetSidecar(this, name, options.archive ?? false, options.reason ?? "gc");
  }

  /**
   * A tape over a {@link ForkTapeStore}; disposing it merges the fork back (or discards it
   * when `mergeBack` is false).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { InMemoryTapeStore, Tape } from "@bub/core";
   * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("a__b");
   * {
   *   await using fork = tape.forkTape();
   *   await fork.appendEvent("ping", {});
   * }
   * assert.ok((await tape.query().all()).length === 1);
   * ```
   */
  forkTape(mergeBack = true): Tape {
    const fork = new ForkTapeStore(this.store, {
      tape: this.name,
      sidecarTapes: this.sidecars.map((sidecar) => sidecarTapeName(this.name, sidecar.name)),
    });
    const tape = this.#copy({ store: fork });
    tape.#dispose = () => mergeBack ? fork.mergeBack() : fork.discard();
    return tape;
  }

  /** For a fork: merges back or discards (once). For other tapes: nothing. */
  async [Symbol.asyncDispose](): Promise<void> {
    const dispose = this.#dispose;
    this.#dispose = null;
    if (dispose) await dispose();
  }
}
