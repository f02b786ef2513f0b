/**
 * Private: what one tool call comes to in the executor's result. A value, or a failure as a
 * {@link BubError} ({@link normalizeToolError}) whose model-facing value is the error's dict
 * unless a hook put a result in its place; a call held for approval has no value yet. A
 * cancellation is never an outcome: it is rethrown ({@link cancelled}).
 *
 * @module
 */
import { isCancellation } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import type { HeldCall } from "../kernel/stream_events.ts";
import { errorRepr } from "./_repr.ts";
import { toIssue, ToolArgumentsError } from "./_schema.ts";

/** One invocation's outcome. */
export interface Outcome {
  /** The model-facing value (an error dict for a failure; null for a held call). */
  value: unknown;
  /** The failure, or null. */
  error: BubError | null;
  /** The call, when it is held for approval. */
  held?: HeldCall;
}

/**
 * Turns anything a tool threw into a {@link BubError}: a `BubError` passes unchanged, argument
 * validation errors become `invalid_input` `Tool '<name>' argument validation failed.` with
 * `details.errors`, anything else becomes `tool` `Tool '<name>' execution failed.` with
 * `details.error` = its developer representation (e.g. `Error('boom')`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeToolError } from "@bub/core/tools";
 * const error = normalizeToolError(new Error("boom"), "bash", { cmd: "ls" });
 * assert.equal(error.kind, "tool");
 * assert.equal(error.message, "Tool 'bash' execution failed.");
 * ```
 */
export function normalizeToolError(
  error: unknown,
  name: string,
  args: unknown = undefined,
): BubError {
  if (error instanceof ToolArgumentsError) {
    return new BubError("invalid_input", `Tool '${name}' argument validation failed.`, {
      errors: [...error.errors],
    }, { cause: error });
  }
  if (BubError.isInstance(error)) return error;
  const issues = (error as { name?: unknown; issues?: unknown } | null)?.issues;
  if (error instanceof Error && error.name === "ZodError" && Array.isArray(issues)) {
    return new BubError("invalid_input", `Tool '${name}' argument validation failed.`, {
      errors: issues.map((issue) => toIssue(issue, args)),
    }, { cause: error });
  }
  return new BubError("tool", `Tool '${name}' execution failed.`, { error: errorRepr(error) }, {
    cause: error,
  });
}

/** Rethrows cancellation; returns any other error. */
export function cancelled(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) throw signal.reason;
  if (isCancellation(error)) throw error;
  return error;
}

/** The outcome of a failure: `replacement` as its value, else the error's dict. */
export function failed(error: BubError, replacement: unknown): Outcome {
  const value = replacement === null || replacement === undefined ? error.asDict() : replacement;
  return { value, error };
}
