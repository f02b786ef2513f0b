/**
 * The options of a `Tape`: its store, name, context, sidecars and archive, and what a handoff
 * records.
 *
 * @module
 */
import type { TapeContext, TapeSidecar } from "../kernel/tape_context.ts";
import type { TapeMeta } from "./entry.ts";
import type { SyncTapeStore, TapeStore } from "./store.ts";

/**
 * Options of `Tape`.
 *
 * @example
 * ```ts
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import type { TapeOptions } from "@bub/core/tape";
 * const options: TapeOptions = { store: new InMemoryTapeStore(), name: "cli-local", clock: () => new Date(0) };
 * const tape = new Tape(options);
 * ```
 */
export interface TapeOptions {
  /** The store (a sync store is wrapped). */
  store: TapeStore | SyncTapeStore;
  /** The tape name; unscoped when absent. */
  name?: string | null;
  /** How contexts are read (default `defaultTapeContext()`). */
  context?: TapeContext;
  /** Mounted sidecars (deduplicated by name, first wins). */
  sidecars?: readonly TapeSidecar[];
  /** Where reset/archive writes `.bak` files; null disables archiving. */
  archivePath?: string | null;
  /** The clock for archive stamps (default `() => new Date()`). */
  clock?: () => Date;
}

/**
 * Options of `Tape.handoff`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import type { HandoffOptions } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("t");
 * const options: HandoffOptions = { name: "handoff/build-fixed", state: { summary: "The build passes." } };
 * const [anchor] = await tape.handoff(options);
 * assert.equal(anchor.payload.name, "handoff/build-fixed");
 * ```
 */
export interface HandoffOptions {
  /** The anchor name. */
  name: string;
  /** The anchor state. */
  state?: Record<string, unknown> | null;
  /** Meta of both entries. */
  meta?: TapeMeta;
}
