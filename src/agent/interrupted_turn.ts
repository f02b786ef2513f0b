/**
 * How to go on with a turn a crash interrupted, read from the session tape after its fork was
 * adopted (`src/tape/interrupted.ts` appends `turn.interrupted {fork, step, calls}` after the
 * fork's entries). Pure: the tape's entries in, the resume's input out (`turn_resume.ts` takes
 * `{step, calls, outcomes}`):
 *
 * - null: nothing to resume. Either the step had no pending tool calls (its model call was the
 *   last thing done: the turn's answer is its last assistant message, which the fork holds), or
 *   that turn was resumed already (a `turn.resumed` event names its fork). A turn that died
 *   before its first tool call was recorded left no journal at all (a model call's record and
 *   the loop's markers are journaled with the next tool record or the merge, see
 *   `isDeferrableEntry`): there is nothing to adopt, and its message is run again by whoever
 *   delivered it (the cluster's inbox keeps it pending until the turn completes, so it runs once
 *   more), paying that model call a second time at most.
 * - `{step, calls, outcomes}`: per call, in the order of the `tool_call` entry, a completed call
 *   gives `{kind: "result"}` with its `tool.end` result (not run again), a call that started and
 *   never ended gives `{kind: "result", ok: false, result: "interrupted: unknown whether it took
 *   effect"}` unless its tool is idempotent (`{kind: "run"}`, with the same call id as its
 *   idempotency key), and a call that never started gives `{kind: "run"}`.
 *
 * @module
 */
import type { CallOutcome } from "./turn_resume.ts";
import { isRecord } from "../_internal/object.ts";
import type { TapeEntry } from "../tape/entry.ts";
import type { InterruptedCall } from "../tape/interrupted.ts";

/**
 * The result a started call that never ended gets (its tool is not idempotent).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { INTERRUPTED_RESULT } from "@bub/core/agent";
 * assert.match(INTERRUPTED_RESULT, /^interrupted: /);
 * ```
 */
export const INTERRUPTED_RESULT = "interrupted: unknown whether it took effect";

/**
 * One call of the interrupted step (as `turn.interrupted` names it): the tape's
 * {@link InterruptedCall}.
 *
 * @example
 * ```ts
 * import type { ResumeCall } from "@bub/core/agent";
 * const call: ResumeCall = { call_id: "call_1", tool: "bash", state: "completed" };
 * ```
 */
export type ResumeCall = InterruptedCall;

/**
 * The input of a resume: the step, its calls and one outcome per call (same order).
 *
 * @example
 * ```ts
 * import type { InterruptedTurnPlan } from "@bub/core/agent";
 * const plan: InterruptedTurnPlan = { fork: "f", step: 1, calls: [], outcomes: [] };
 * ```
 */
export interface InterruptedTurnPlan {
  /** The fork the turn ran on. */
  fork: string;
  /** The step the turn was in. */
  step: number;
  /** Its pending calls. */
  calls: ResumeCall[];
  /** What to do with each (same order as `calls`). */
  outcomes: CallOutcome[];
}

/**
 * Options of {@link planInterruptedTurn}.
 *
 * @example
 * ```ts
 * import type { PlanOptions } from "@bub/core/agent";
 * const options: PlanOptions = { idempotent: (tool) => tool === "web.fetch" };
 * ```
 */
export interface PlanOptions {
  /** True for a tool declared `idempotent: true` (default: none is). */
  idempotent?: (tool: string) => boolean;
}

function _event(entry: TapeEntry, name: string): Record<string, unknown> | null {
  if (entry.kind !== "event" || entry.payload.name !== name) return null;
  return isRecord(entry.payload.data) ? entry.payload.data : {};
}

function _calls(value: unknown): ResumeCall[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((call) => ({
    call_id: String(call.call_id ?? ""),
    tool: String(call.tool ?? ""),
    state: call.state === "completed" || call.state === "started" ? call.state : "not_started",
  }));
}

/**
 * The resume of the newest interrupted turn of a session tape's `entries`, or null (see the
 * module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planInterruptedTurn } from "@bub/core/agent";
 * import { createEntry } from "@bub/core/tape";
 * const entries = [
 *   createEntry("tool_call", { calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }] }),
 *   createEntry("event", { name: "turn.interrupted", data: { fork: "f", step: 1, calls: [{ call_id: "c1", tool: "bash", state: "not_started" }] } }),
 * ].map((entry, i) => ({ ...entry, id: i + 1 }));
 * assert.deepEqual(planInterruptedTurn(entries)?.outcomes, [{ kind: "run" }]);
 * ```
 */
export function planInterruptedTurn(
  entries: readonly TapeEntry[],
  options: PlanOptions = {},
): InterruptedTurnPlan | null {
  const resumed = new Set<string>();
  let at = -1;
  let data: Record<string, unknown> | null = null;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    const done = _event(entry, "turn.resumed");
    if (done && typeof done.fork === "string") resumed.add(done.fork);
    data = _event(entry, "turn.interrupted");
    // A cluster before issue 30 named its record of an interrupted inbox message
    // (`{message_id, owner, ...}`, now `cluster.turn_interrupted`) the same: not an adoption.
    if (data && typeof data.fork !== "string" && data.message_id !== undefined) data = null;
    if (data) {
      at = i;
      break;
    }
  }
  if (data === null || typeof data.fork !== "string" || resumed.has(data.fork)) return null;
  const calls = _calls(data.calls);
  if (calls.length === 0) return null;
  // The calls' `tool.end` events are among the fork's entries, just before the event.
  const ends = new Map<string, Record<string, unknown>>();
  for (let i = at - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.kind === "tool_call") break;
    const end = _event(entry, "tool.end");
    if (end && typeof end.call_id === "string" && !ends.has(end.call_id)) {
      ends.set(end.call_id, end);
    }
  }
  const idempotent = options.idempotent ?? (() => false);
  const outcomes = calls.map((call): CallOutcome => {
    const end = ends.get(call.call_id);
    if (call.state === "completed" && end) {
      return { kind: "result", result: end.result, ok: end.status === "ok" };
    }
    if (call.state === "not_started" || idempotent(call.tool)) return { kind: "run" };
    return { kind: "result", result: INTERRUPTED_RESULT, ok: false };
  });
  return { fork: data.fork, step: Number(data.step) || 0, calls, outcomes };
}
