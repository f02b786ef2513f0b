/**
 * The builtin plugin's tape hooks: the store the `tape_store` setting names (default the file
 * store at `<home>/tapes`), the spill sidecar, the default context and the spill
 * `afterToolCall` step (last, §14.4).
 *
 * @module
 */
import { nonEmptyString } from "../_internal/non_empty.ts";
import type { ToolCall, ToolCallResult } from "../kernel/agent_hooks.ts";
import { hookimpl } from "../kernel/plugin.ts";
import type { TapeContext, TapeSidecar } from "../kernel/tape_context.ts";
import { defaultTapeContext } from "../tape/context.ts";
import type { TapeStore } from "../tape/store.ts";
import { SpillStore } from "../tape/spill.ts";
import { spillAfterToolCall } from "../tape/spill_hook.ts";
import { createTapeStoreFromSetting } from "./tape_store_setting.ts";

/** Options of {@link createTapeHooks}. */
export interface TapeHooksOptions {
  /** Bub's home (`BUB_HOME`); tapes live in `<home>/tapes`. */
  home: string;
  /** Spill threshold in estimated tokens (`BUB_SPILL_THRESHOLD` / `spill.threshold`, default 4096). */
  spillThreshold?: number;
  /**
   * The `tape_store` setting, read when a store is provided (`file`, `memory`, `sqlite:<path>`,
   * a `postgres://` URL). Default `"file"`.
   */
  tapeStore?: () => string;
  /**
   * The `tape_store_retry_seconds` setting: how long the store retries while it is unavailable.
   * Default 300.
   */
  tapeStoreRetrySeconds?: () => number;
}

/** The tape hook implementations of the builtin plugin. */
export interface TapeHooks {
  /**
   * Yields the store the `tape_store` setting names (default `FileTapeStore(<home>/tapes)`) for
   * one `running()` scope and closes it when the scope exits.
   */
  provideTapeStore: () => AsyncGenerator<TapeStore & AsyncDisposable, void, unknown>;
  /** The spill sidecar. */
  provideTapeSidecar: () => TapeSidecar;
  /** `defaultTapeContext()`. */
  buildTapeContext: () => TapeContext;
  /** Spills oversized tool values; marked `trylast`. */
  afterToolCall: (
    args: { call: ToolCall; result: ToolCallResult; state: Record<string, unknown> },
  ) => Promise<void>;
}

/**
 * Creates the builtin tape hooks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createTapeHooks } from "./tape_hooks.ts";
 * const hooks = createTapeHooks({ home: "/tmp/bub-home" });
 * const store = (await hooks.provideTapeStore().next()).value;
 * assert.ok(store?.constructor.name === "FileTapeStore");
 * ```
 */
export function createTapeHooks(options: TapeHooksOptions): TapeHooks {
  nonEmptyString(options?.home, "Cannot create tape hooks: home must be a non-empty path");
  const threshold = options.spillThreshold;
  const spill = new SpillStore(threshold === undefined ? {} : { threshold });
  return {
    async *provideTapeStore() {
      const store = createTapeStoreFromSetting(options.tapeStore?.() ?? "file", options.home, {
        retrySeconds: options.tapeStoreRetrySeconds?.() ?? 300,
      });
      try {
        yield store;
      } finally {
        await store[Symbol.asyncDispose]();
      }
    },
    provideTapeSidecar: () => spill,
    buildTapeContext: () => defaultTapeContext(),
    afterToolCall: hookimpl((args) => spillAfterToolCall(args), { trylast: true }),
  };
}
