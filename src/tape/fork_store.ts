/**
 * `ForkTapeStore`: a store layered over a parent for one tape and its sidecar tapes (the
 * "managed" tapes), buffered until `mergeBack()` (§5.9).
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { getLogger } from "../_internal/log.ts";
import { redactKnownSecrets } from "../_internal/secrets.ts";
import { BubError } from "../kernel/errors.ts";
import { createEntry, type TapeEntry } from "./entry.ts";
import { appendStoredCopies, InMemoryTapeStore } from "./memory_store.ts";
import type { TapeQuery } from "./query.ts";
import { appendAll, type TapeStore, toAsyncTapeStore } from "./store.ts";
import { latestEvents, pickLatestEvents } from "./latest_events.ts";
import { provideForkLayers } from "./store/_live_view.ts";
import { keepEntryText } from "./store/_entry_text.ts";

const logger = getLogger(["bub", "tape"]);

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
}

function _textOnly(parts: unknown[]): unknown[] {
  return parts.filter((part) => isRecord(part) && part.type === "text");
}

/**
 * Keeps only the text parts of a list `content` (else of a list `prompt`): media never persists.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactPayload } from "@bub/core/tape";
 * const text = { type: "text", text: "What is this?" };
 * const image = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };
 * assert.deepEqual(redactPayload({ role: "user", content: [text, image] }).content, [text]);
 * ```
 */
export function redactPayload(payload: Record<string, unknown>): Record<string, unknown> {
  if ("content" in payload) {
    return Array.isArray(payload.content)
      ? { ...payload, content: _textOnly(payload.content) }
      : payload;
  }
  if (Array.isArray(payload.prompt)) return { ...payload, prompt: _textOnly(payload.prompt) };
  return payload;
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

  /** Managed: clears the buffer and hides the parent's entries until merge; else resets the parent. */
  async reset(tape: string): Promise<void> {
    if (!this.#managed(tape)) return await this.parent.reset(tape);
    await this.#local.reset(tape);
    this.#reset.add(tape);
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
    await appendAll(this.#managed(tape) ? this.#local : this.parent, tape, redacted);
  }

  /** Parent results (unless reset here) followed by the buffered entries (§5.9). */
  async fetchAll(query: TapeQuery): Promise<TapeEntry[]> {
    if (!this.#managed(query.tape)) return await this.parent.fetchAll(query);
    let result: TapeEntry[] = [];
    if (!this.#reset.has(query.tape)) {
      try {
        result = await this.parent.fetchAll(query);
      } catch (error) {
        if (!BubError.isInstance(error)) throw error;
      }
    }
    const kinds = query.kindList.length ? new Set(query.kindList) : null;
    for (const entry of this.#local.read(query.tape) ?? []) {
      if (
        entry.kind === "anchor" &&
        (query.afterLast ||
          (query.afterAnchorName !== null && entry.payload.name === query.afterAnchorName))
      ) {
        result = [];
        continue;
      }
      if (kinds && !kinds.has(entry.kind)) continue;
      result.push(entry);
    }
    return query.limitCount === null ? result : result.slice(0, query.limitCount);
  }

  /** The newest event of each of `names`: buffered ones first, then the parent's (§5.9 order). */
  async latestEvents(tape: string, names: readonly string[]): Promise<TapeEntry[]> {
    if (!this.#managed(tape)) return await latestEvents(this.parent, tape, names);
    const local = pickLatestEvents(this.#local.read(tape) ?? [], names);
    const found = new Set(local.map((entry) => entry.payload.name));
    const rest = names.filter((name) => !found.has(name));
    if (rest.length === 0 || this.#reset.has(tape)) return local;
    return [...await latestEvents(this.parent, tape, rest), ...local];
  }

  /** True when nothing is buffered and nothing was reset. */
  get isEmpty(): boolean {
    return this.#reset.size === 0 &&
      [this.tape, ...this.sidecarTapes].every((tape) => !this.#local.read(tape)?.length);
  }

  async #mergeTape(tape: string): Promise<void> {
    if (this.#reset.has(tape)) await this.parent.reset(tape);
    const local = this.#local.read(tape) ?? [];
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
    for (const tape of this.sidecarTapes) {
      try {
        await this.#mergeTape(tape);
      } catch (error) {
        const message = redactKnownSecrets(error instanceof Error ? error.message : String(error));
        logger.error("tape.sidecar_merge_failed {tape}: {error}", { tape, error: message });
        await this.#local.reset(tape);
        this.#reset.delete(tape);
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
  }

  /** Drops every buffered entry and reset mark. */
  async discard(): Promise<void> {
    for (const tape of [this.tape, ...this.sidecarTapes]) await this.#local.reset(tape);
    this.#reset.clear();
  }
}
