/**
 * Private: one tool call's way through the hooks. `beforeToolCall` decides first: proceed (the
 * call runs, with the arguments the hook may have changed), ask (the call runs when `approve`
 * says so, else it is held for approval), deny (a `tool` error) or replace (the hook's result
 * stands in); then exactly one `afterToolCall` sees the result, unless the call is cancelled or
 * held. Without hooks the call just runs. Either way the call journal records `tool.start` right
 * before the handler and `tool.end` with the value the model will see.
 *
 * @module
 */
import { type AgentHooks, ToolCall, ToolCallResult } from "../kernel/agent_hooks.ts";
import { BubError } from "../kernel/errors.ts";
import type { HeldCall } from "../kernel/stream_events.ts";
import { TAPE_STATE_KEY, type TurnState } from "../kernel/turn.ts";
import type { CallJournal, CallStatus } from "./_call_journal.ts";
import { cancelled, failed, normalizeToolError, type Outcome } from "./_tool_outcome.ts";
import type { ToolRun } from "./_tool_run.ts";
import type { ToolContext } from "./tool.ts";

/** One call of a step, as the hooks and the journal see it. */
export interface StepCall {
  /** The name as invoked. */
  name: string;
  /** The tool's own name (recorded in the journal and on a held call). */
  tool: string;
  /** The model's call id, or null. */
  callId: string | null;
  /** The arguments as given. */
  arguments: Record<string, unknown>;
  /** Its place in the step. */
  index: number;
  /** Runs it. */
  run: ToolRun;
}

/** What a step's calls share. */
export interface CallStep {
  /** The step's tool context (its state, tape and run id reach the hooks), or null. */
  context: ToolContext | null;
  /** Cancels the calls. */
  signal: AbortSignal | undefined;
  /** Records `tool.start` / `tool.end`, or null. */
  journal: CallJournal | null;
  /** Asked when `beforeToolCall` answers `ask`: true runs the call; false or none holds it. */
  approve: ((ask: HeldCall) => boolean | Promise<boolean>) | null;
}

/** Runs `call` without hooks. */
export async function callWithoutHooks(call: StepCall, step: CallStep): Promise<Outcome> {
  const journal = step.journal;
  await journal?.start(call.callId, call.tool);
  try {
    const value = await call.run(call.arguments);
    await journal?.end(call.callId, "ok", value);
    return { value, error: null };
  } catch (error) {
    const outcome = failed(
      normalizeToolError(cancelled(error, step.signal), call.name, call.arguments),
      null,
    );
    await journal?.end(call.callId, "error", outcome.value);
    return outcome;
  }
}

/** Runs `call` through `beforeToolCall` and `afterToolCall` (see the module doc). */
export async function callThroughHooks(
  hooks: AgentHooks,
  call: StepCall,
  step: CallStep,
): Promise<Outcome> {
  const { context, signal, journal } = step;
  const { name, callId } = call;
  const state: TurnState = context?.state ?? {};
  if (context) state[TAPE_STATE_KEY] = context.tape;
  const runId = context?.runId || "";
  const started = performance.now();
  const [hooked, decision] = await hooks.beforeToolCall(
    new ToolCall({ runId, tool: name, arguments: call.arguments }),
    state,
  );
  signal?.throwIfAborted();
  if (decision.action === "ask") {
    const held: HeldCall = {
      index: call.index,
      callId,
      tool: call.tool,
      arguments: hooked.arguments,
      reason: decision.message ?? "",
      match: decision.match,
    };
    if (!step.approve || !(await step.approve(held))) return { value: null, error: null, held };
  }
  const result = new ToolCallResult({ runId, tool: name, arguments: hooked.arguments });
  let error: BubError | null = null;
  let status: CallStatus = "ok";
  if (decision.action === "deny") {
    status = "denied";
    error = new BubError(
      "tool",
      decision.message || `Tool '${name}' call denied by policy hook.`,
    );
  } else if (decision.action === "replace") {
    status = "replaced";
    result.result = decision.result;
  } else {
    await journal?.start(callId, call.tool);
    try {
      result.result = await call.run(hooked.arguments);
    } catch (thrown) {
      status = "error";
      error = normalizeToolError(cancelled(thrown, signal), name, hooked.arguments);
    }
  }
  result.error = error;
  result.durationMs = Math.trunc(performance.now() - started);
  await hooks.afterToolCall(hooked, result, state);
  const outcome = error ? failed(error, result.result) : { value: result.result, error: null };
  await journal?.end(callId, status, outcome.value);
  return outcome;
}
