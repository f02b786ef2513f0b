/**
 * Continuing a turn whose tape's last step has tool calls without a `tool_result` entry (a
 * step suspended for approval, or cut off by a crash): {@link findSuspendedTurn} reads that step
 * back from the tape, {@link resumeStep} finishes it — the calls to run go through the normal
 * executor (hooks, `tool.start` / `tool.end`), the others take the given result — and records
 * `tool_result` and `run` like a normal step. `Agent.resumeTurn` then lets the loop go on.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { BubError } from "../kernel/errors.ts";
import { AsyncStreamEvents, type StreamEvent } from "../kernel/stream.ts";
import type { ToolCallPayload } from "../kernel/stream_events.ts";
import type { Prompt, TurnState } from "../kernel/turn.ts";
import type { Tape } from "../tape/tape.ts";
import type { ToolExecutor } from "../tools/executor.ts";
import type { Tool } from "../tools/tool.ts";
import { recordToolResults } from "./_step_records.ts";
import { executeWithEvents, type SerializedToolCall, toolInvocations } from "./_tool_calls.ts";

/**
 * What to do with one call of the suspended step: run it now, or use `result` as its result
 * (denied, expired, or completed before).
 *
 * @example
 * ```ts
 * import type { CallOutcome } from "@bub/core/agent";
 * const denied: CallOutcome = { kind: "result", result: "denied by 42: not now", ok: false };
 * const approved: CallOutcome = { kind: "run" };
 * ```
 */
export type CallOutcome = { kind: "run" } | { kind: "result"; result: unknown; ok: boolean };

/**
 * The suspended step of a turn, as its tape tells it.
 *
 * @example
 * ```ts
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { findSuspendedTurn, type SuspendedTurn } from "@bub/core/agent";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("s");
 * const turn: SuspendedTurn | null = await findSuspendedTurn(tape);
 * console.assert(turn === null);
 * ```
 */
export interface SuspendedTurn {
  /** The step number of the suspended step. */
  step: number;
  /** The run id of the step's model call (the `tool_call` entry's). */
  runId: string;
  /** The step's tool calls. */
  calls: ToolCallPayload[];
  /** The turn's model (`loop.start`), or null. */
  model: string | null;
  /** The turn's prompt (`loop.start`). */
  prompt: Prompt;
  /** The turn's allowed tools, or null for all. */
  allowedTools: string[] | null;
  /** The turn's allowed skills, or null for all. */
  allowedSkills: string[] | null;
  /** The results of the calls that ended (`tool.end`), by call id. */
  completed: Map<string, unknown>;
}

function names(value: unknown): string[] | null {
  return Array.isArray(value) && value.length > 0 ? value.map(String) : null;
}

/**
 * The last step of `tape` when it has tool calls without a `tool_result` entry, else null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { findSuspendedTurn } from "@bub/core/agent";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("t");
 * assert.equal(await findSuspendedTurn(tape), null); // nothing waits on a new tape
 * ```
 */
export async function findSuspendedTurn(tape: Tape): Promise<SuspendedTurn | null> {
  const entries = await tape.query().all();
  let at = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    const kind = entries[i]!.kind;
    if (kind === "tool_result") return null;
    if (kind === "tool_call") {
      at = i;
      break;
    }
  }
  if (at < 0) return null;
  const callEntry = entries[at]!;
  const calls = (callEntry.payload.calls ?? []) as SerializedToolCall[];
  let step = 1;
  let start: Record<string, unknown> = {};
  let foundStep = false;
  for (let i = at - 1; i >= 0; i--) {
    const { name, data } = entries[i]!.payload as { name?: unknown; data?: unknown };
    if (!isRecord(data)) continue;
    if (!foundStep && name === "loop.step.start" && typeof data.step === "number") {
      step = data.step;
      foundStep = true;
    } else if (name === "loop.start") {
      start = data;
      break;
    }
  }
  const completed = new Map<string, unknown>();
  for (const entry of entries.slice(at + 1)) {
    const { name, data } = entry.payload as { name?: unknown; data?: unknown };
    if (name === "tool.end" && isRecord(data) && typeof data.call_id === "string") {
      completed.set(data.call_id, data.result);
    }
  }
  return {
    step,
    runId: String((callEntry.meta as { run_id?: unknown }).run_id ?? ""),
    calls,
    model: typeof start.model === "string" ? start.model : null,
    prompt: (start.prompt ?? "") as Prompt,
    allowedTools: names(start.allowed_tools),
    allowedSkills: names(start.allowed_skills),
    completed,
  };
}

/** Inputs of {@link resumeStep}. */
export interface ResumeStepArgs {
  /** The turn's tape (a fork of the session tape). */
  tape: Tape;
  /** The step to finish. */
  turn: SuspendedTurn;
  /** Per call id; a call without one takes its `tool.end` result, else the step fails. */
  outcomes: ReadonlyMap<string, CallOutcome>;
  /** Runs the calls (the model runner's executor). */
  executor: ToolExecutor;
  /** The tools of the turn. */
  tools: readonly Tool[];
  /** The turn state. */
  state: TurnState;
  /** Cancels the tools. */
  signal?: AbortSignal;
}

/**
 * Finishes the suspended step: runs the calls whose outcome is `run` (approved: an `ask` of
 * `beforeToolCall` lets them through), records `tool_result` and `run`, and streams the step's
 * tool events and its `final` like a step that ran its tools.
 *
 * @throws BubError (`invalid_input`) when a call has neither an outcome nor a recorded end
 */
export function resumeStep(args: ResumeStepArgs): AsyncStreamEvents {
  return new AsyncStreamEvents(finish(args));
}

async function* finish(args: ResumeStepArgs): AsyncGenerator<StreamEvent> {
  const { tape, turn, outcomes, state, signal } = args;
  const results: unknown[] = new Array(turn.calls.length).fill(null);
  const toRun: { call: SerializedToolCall; index: number }[] = [];
  turn.calls.forEach((call, index) => {
    const outcome = outcomes.get(call.id);
    if (outcome?.kind === "run") toRun.push({ call, index });
    else if (outcome?.kind === "result") results[index] = outcome.result;
    else if (turn.completed.has(call.id)) results[index] = turn.completed.get(call.id);
    else {
      throw new BubError(
        "invalid_input",
        `Cannot resume step ${turn.step}: tool call "${call.id}" (${call.function.name}) has no ` +
          "outcome and did not complete",
      );
    }
  });
  if (toRun.length > 0) {
    const calls = toRun.map((item) => item.call);
    yield { kind: "tool_call", data: { tool_calls: calls } };
    const execution = yield* executeWithEvents(
      args.executor,
      toolInvocations(calls, args.tools),
      {
        context: { tape, runId: turn.runId, state, signal },
        signal,
        approve: () => true,
        recordCalls: true,
      },
    );
    toRun.forEach((item, i) => (results[item.index] = execution.toolResults[i]));
  }
  await recordToolResults(tape, turn.runId, results, { model: turn.model });
  yield { kind: "tool_result", data: { tool_results: results } };
  yield { kind: "final", data: { ok: true, tool_calls: turn.calls, tool_results: results } };
}
