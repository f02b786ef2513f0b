/**
 * What the kernel knows of tapes: how a context is selected, and named sidecars.
 *
 * @module
 */

/**
 * Selects entries after the last anchor of any name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LAST_ANCHOR, TapeContext } from "@bub/core/tape";
 * assert.equal(new TapeContext().anchor, LAST_ANCHOR); // history starts after the newest anchor
 * ```
 */
export const LAST_ANCHOR: unique symbol = Symbol.for("bub.tape.last_anchor");

/**
 * Turns selected tape entries into chat messages.
 *
 * @example
 * ```ts
 * import { TapeContext, type TapeSelector } from "@bub/core/kernel";
 * const lastTen: TapeSelector = (entries) => entries.slice(-10).map((entry) => entry.payload as Record<string, unknown>);
 * const context = new TapeContext({ select: lastTen });
 * ```
 */
export type TapeSelector = (
  entries: readonly Record<string, unknown>[],
  context: TapeContext,
) => Record<string, unknown>[] | Promise<Record<string, unknown>[]>;

/**
 * Options of {@link TapeContext}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TapeContext, type TapeContextOptions } from "@bub/core/kernel";
 * const options: TapeContextOptions = { anchor: "session/start", state: { user: "ada" } };
 * assert.equal(new TapeContext(options).anchor, "session/start");
 * ```
 */
export interface TapeContextOptions {
  /** `LAST_ANCHOR` (default), an anchor name, or null for the whole tape. */
  anchor?: string | null | typeof LAST_ANCHOR;
  /** Turns entries into chat messages; without it, `message` payloads are used. */
  select?: TapeSelector | null;
  /** Free-form state (the agent puts the turn state here). */
  state?: Record<string, unknown>;
}

/**
 * How a model context is rebuilt from a tape: where reading starts and how entries become
 * messages. `buildTapeContext` must return one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TapeContext } from "@bub/core/kernel";
 * import { LAST_ANCHOR } from "@bub/core/tape";
 * const context = new TapeContext({ anchor: LAST_ANCHOR });
 * assert.ok(context.anchor === LAST_ANCHOR);
 * ```
 */
export class TapeContext {
  /** `LAST_ANCHOR`, an anchor name, or null for the whole tape. */
  readonly anchor: string | null | typeof LAST_ANCHOR;
  /** The selector, or null. */
  readonly select: TapeSelector | null;
  /** Free-form state. */
  readonly state: Record<string, unknown>;

  /**
   * Creates the object.
   *
   * @param options anchor, selector and state
   */
  constructor(options: TapeContextOptions = {}) {
    this.anchor = options.anchor === undefined ? LAST_ANCHOR : options.anchor;
    this.select = options.select ?? null;
    this.state = options.state ?? {};
  }

  /** A copy with some fields replaced. */
  with(options: TapeContextOptions): TapeContext {
    return new TapeContext({
      anchor: options.anchor === undefined ? this.anchor : options.anchor,
      select: options.select === undefined ? this.select : options.select,
      state: options.state ?? this.state,
    });
  }
}

/**
 * A named capability backed by a sibling tape (`<tape>__sidecar__<name>`).
 *
 * @example
 * ```ts
 * import { definePlugin } from "@bub/core";
 * import type { TapeSidecar } from "@bub/core/kernel";
 * const notes: TapeSidecar = { name: "notes" };
 * const plugin = definePlugin({ name: "notes", provideTapeSidecar: () => notes });
 * ```
 */
export interface TapeSidecar {
  /** The sidecar name, unique among mounted sidecars. */
  readonly name: string;
}

/**
 * The marker between an owner tape and a sidecar name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SIDECAR_TAPE_MARKER, sidecarTapeName } from "@bub/core/tape";
 * assert.equal(sidecarTapeName("cli-local", "notes"), `cli-local${SIDECAR_TAPE_MARKER}notes`);
 * ```
 */
export const SIDECAR_TAPE_MARKER = "__sidecar__";

/**
 * The physical tape of sidecar `sidecar` of tape `owner`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sidecarTapeName } from "@bub/core/tape";
 * assert.ok(sidecarTapeName("session", "spill") === "session__sidecar__spill");
 * ```
 */
export function sidecarTapeName(owner: string, sidecar: string): string {
  return `${owner}${SIDECAR_TAPE_MARKER}${sidecar}`;
}
