/**
 * The builtin `afterToolCall` spill step (seed era, §14.4): runs last, covers failures.
 *
 * @module
 */
import type { ToolCall, ToolCallResult } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import { dumpsOrString } from "../_internal/json.ts";
import { spillText } from "./spill.ts";
import type { Tape } from "./tape.ts";

/**
 * Arguments of {@link spillAfterToolCall}.
 *
 * @example
 * ```ts
 * import { ToolCall, ToolCallResult } from "@bub/core";
 * import type { SpillHookArgs } from "@bub/core/tape";
 * const args: SpillHookArgs = {
 *   call: new ToolCall({ tool: "bash", arguments: {} }),
 *   result: new ToolCallResult({ tool: "bash", arguments: {}, result: "ok" }),
 *   state: {},
 * };
 * ```
 */
export interface SpillHookArgs {
  /** The call. */
  call: ToolCall;
  /** The mutable result. */
  result: ToolCallResult;
  /** The turn state; `_runtime_tape` holds the tape. */
  state: Record<string, unknown>;
}

function _isTape(value: unknown): value is Tape {
  return typeof value === "object" && value !== null &&
    typeof (value as Tape).getSidecar === "function" &&
    typeof (value as Tape).appendEvent === "function";
}

/**
 * Spills an oversized tool value. The value is the result on success, or (for a `BubError`
 * failure) the result a hook set, else the error dict; other failures are skipped. Strings
 * are written back to `result.result`, and so is every spilled reference.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TAPE_STATE_KEY, InMemoryTapeStore, Tape, ToolCall, ToolCallResult } from "@bub/core";
 * import { SpillStore, spillAfterToolCall } from "@bub/core/tape";
 * const tape = new Tape({ store: new InMemoryTapeStore(), sidecars: [new SpillStore({ threshold: 8 })] }).scoped("t");
 * const result = new ToolCallResult({ tool: "bash", arguments: {}, result: "line\n".repeat(20) });
 * await spillAfterToolCall({ call: new ToolCall({ tool: "bash", arguments: {} }), result, state: { [TAPE_STATE_KEY]: tape } });
 * assert.notEqual(result.result, "line\n".repeat(20)); // the model now sees a preview and a handle
 * ```
 */
export async function spillAfterToolCall({ call, result, state }: SpillHookArgs): Promise<void> {
  const tape = state?._runtime_tape;
  if (!_isTape(tape)) return;
  let value: unknown;
  if (result.error === null || result.error === undefined) value = result.result;
  else if (BubError.isInstance(result.error)) value = result.result ?? result.error.asDict();
  else return;
  const text = typeof value === "string" ? value : dumpsOrString(value);
  const spilled = await spillText(tape, text, {
    tool: call?.tool ?? result.tool,
    runId: call?.runId || result.runId,
  });
  if (spilled !== null) result.result = spilled;
  else if (typeof value === "string") result.result = value;
}
