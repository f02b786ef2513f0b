/**
 * Crash recovery of a session's turn: the next process that serves a session adopts the fork
 * journals a dead process left on its tape (`src/tape/interrupted.ts`: the fork's entries are
 * committed and `turn.interrupted {fork, step, calls}` says where the turn stood), plans the
 * resume (`interrupted_turn.ts`: completed calls keep their recorded result, a call that started
 * and never ended gets "interrupted: unknown whether it took effect" unless its tool is
 * idempotent, a call that never started runs) and continues the turn from that step through
 * `Agent.resumeTurn`, which records `turn.resumed {fork, step}` first on its own fork (so it is
 * committed with the resumed turn: a crash during the resume leaves the turn to resume again).
 *
 * A turn that died before any durable record (nothing journaled: no tool call had started) is
 * not resumed: its message is run again by whoever delivers it (the cluster's inbox keeps it
 * pending; a `bub run` user sends it again).
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import type { TurnState } from "../kernel/turn.ts";
import type { AsyncStreamEvents } from "../kernel/stream.ts";
import { isRecord } from "../_internal/object.ts";
import { adoptInterruptedTurns, type InterruptedTurn } from "../tape/interrupted.ts";
import type { Tape } from "../tape/tape.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { modelToolName } from "../tools/tool.ts";
import type { TapeEntry } from "../tape/entry.ts";
import { readApprovals, TURN_ORIGIN_STATE_KEY, turnOrigin } from "./approvals.ts";
import { type CallOutcome, findSuspendedTurn } from "./turn_resume.ts";
import {
  INTERRUPTED_RESULT,
  type InterruptedTurnPlan,
  planInterruptedTurn,
  type ResumeCall,
} from "./interrupted_turn.ts";

const logger = getLogger(["bub", "agent"]);

/**
 * The name of the event a resumed turn records first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TURN_RESUMED } from "@bub/core/agent";
 * assert.equal(TURN_RESUMED, "turn.resumed");
 * ```
 */
export const TURN_RESUMED = "turn.resumed";

/**
 * Where a turn came from, as `loop.start` records it (`data.origin`), so that a process that
 * resumes the turn without a message knows where its answer goes.
 */
export interface RecordedOrigin {
  /** The session. */
  session_id: string;
  /** The channel the message came from, or null. */
  channel: string | null;
  /** The chat, or null. */
  chat_id: string | null;
  /** The sender, or null. */
  sender: string | null;
  /** Where the turn's answer went (`"null"`: nowhere, the model sends it), or null. */
  output_channel?: string | null;
}

/** What recovery needs of the agent (the builtin `Agent` is one). */
export interface RecoveringAgent {
  /** The session tape of `sessionId`. */
  sessionTape(sessionId: string, state: TurnState): Tape;
  /** The tools (for `idempotent`). */
  readonly registry: ToolRegistry;
  /** Continues the session's suspended turn. */
  resumeTurn(options: {
    sessionId: string;
    state: TurnState;
    outcomes: Record<string, CallOutcome>;
    signal?: AbortSignal;
    resumed?: { fork: string; step: number };
  }): Promise<AsyncStreamEvents>;
}

/** Options of {@link recoverTurn}. */
export interface RecoverTurnOptions {
  /** The session. */
  sessionId: string;
  /** The turn state of the process serving it. */
  state: TurnState;
  /** Cancels the resumed turn. */
  signal?: AbortSignal;
  /**
   * Also adopt journals whose writer's state is unknown (another machine's; a cluster instance
   * holding the session's lease). Default false.
   */
  includeUnknown?: boolean;
}

/**
 * True when the tool named `name` (registry or model name) is declared `idempotent: true`.
 */
export function isIdempotentTool(registry: ToolRegistry, name: string): boolean {
  const tool = registry.get(name) ??
    registry.list().find((candidate) => modelToolName(candidate.name) === name);
  return tool?.idempotent === true;
}

/**
 * Adopts the session's interrupted turns and plans the resume of the newest one, or null when
 * there is none to resume.
 */
export async function planSessionRecovery(
  agent: RecoveringAgent,
  options: RecoverTurnOptions,
): Promise<InterruptedTurnPlan | null> {
  const tape = agent.sessionTape(options.sessionId, options.state);
  const sidecarTapes = tape.sidecars.map((sidecar) => tape.sidecarTapeName(sidecar.name));
  const adopted = await adoptInterruptedTurns(tape.store, tape.name, {
    sidecarTapes,
    includeUnknown: options.includeUnknown === true,
  });
  // A resume journals `turn.resumed` at once: a crash during it leaves a journal, adopted here.
  if (adopted.length === 0) return null;
  const entries = await tape.query().all();
  const idempotent = (tool: string) => isIdempotentTool(agent.registry, tool);
  return planInterruptedTurn(entries, { idempotent }) ??
    await _planFromTape(tape, entries, adopted.at(-1)!.fork, idempotent);
}

/**
 * The plan of a turn whose resume (after a crash or an approval) was itself interrupted: its
 * fork holds no `tool_call` of its own, so the step's calls are read from the session tape (the
 * last `tool_call` without a `tool_result`), each call's state from the `tool.start`/`tool.end`
 * events after it, and a call held for approval keeps its decision (not run unless approved).
 */
async function _planFromTape(
  tape: Tape,
  entries: readonly TapeEntry[],
  fork: string,
  idempotent: (tool: string) => boolean,
): Promise<InterruptedTurnPlan | null> {
  const suspended = await findSuspendedTurn(tape);
  if (suspended === null) return null;
  let at = entries.length - 1;
  while (at >= 0 && entries[at]!.kind !== "tool_call") at--;
  const started = new Set<string>();
  for (const entry of entries.slice(at + 1)) {
    const data = entry.payload.data;
    if (_isEvent(entry, "tool.start") && isRecord(data)) started.add(String(data.call_id));
  }
  const { requests } = await readApprovals(tape);
  const decisions = new Map(requests.map((item) => [item.request.call_id, item.decision]));
  const calls: ResumeCall[] = [];
  const outcomes: CallOutcome[] = [];
  for (const call of suspended.calls) {
    const tool = call.function.name;
    if (suspended.completed.has(call.id)) {
      calls.push({ call_id: call.id, tool, state: "completed" });
      outcomes.push({ kind: "result", result: suspended.completed.get(call.id), ok: true });
      continue;
    }
    const state = started.has(call.id) ? "started" : "not_started";
    calls.push({ call_id: call.id, tool, state });
    const decision = decisions.get(call.id);
    if (decision !== undefined && decision?.decision !== "approve") {
      const result = decision === null
        ? "not run: its approval was never decided"
        : decision.decision === "expired"
        ? "approval expired"
        : `denied by ${decision.by}: ${decision.reason || "no reason given"}`;
      outcomes.push({ kind: "result", result, ok: false });
    } else if (state === "not_started" || idempotent(tool)) outcomes.push({ kind: "run" });
    else outcomes.push({ kind: "result", result: INTERRUPTED_RESULT, ok: false });
  }
  return { fork, step: suspended.step, calls, outcomes };
}

/**
 * Resumes the session's interrupted turn when a crash left one (see the module doc): its
 * stream, or null when there is nothing to resume.
 */
export async function recoverTurn(
  agent: RecoveringAgent,
  options: RecoverTurnOptions,
): Promise<AsyncStreamEvents | null> {
  const plan = await planSessionRecovery(agent, options);
  if (plan === null) return null;
  const outcomes: Record<string, CallOutcome> = {};
  plan.calls.forEach((call, i) => (outcomes[call.call_id] = plan.outcomes[i]!));
  return await agent.resumeTurn({
    sessionId: options.sessionId,
    state: options.state,
    outcomes,
    signal: options.signal,
    resumed: { fork: plan.fork, step: plan.step },
  });
}

/**
 * Recovery before a session's first turn in this process: the builtin `Agent` asks it before
 * every turn, and it calls {@link recoverTurn} once per session tape. A journal is left only by a
 * dead process, so after the first turn here only a process that served the session alongside
 * could leave one (a restart or a cluster takeover resumes through `recoverTurn` explicitly).
 */
export class FirstTurnRecovery {
  #checked = new Set<string>();

  /**
   * The stream of the session's interrupted turn when this is the session's first turn here and
   * a crash left one, else null. A turn that cannot be resumed is logged and not tried again:
   * it must not wedge the session (the new message runs).
   */
  async recover(
    agent: RecoveringAgent,
    options: RecoverTurnOptions,
  ): Promise<AsyncStreamEvents | null> {
    const { sessionId, state } = options;
    if (sessionId.startsWith("temp/")) return null;
    const tapeName = agent.sessionTape(sessionId, state).name;
    if (this.#checked.has(tapeName)) return null;
    if (this.#checked.size >= 10_000) this.#checked.clear();
    let recovered = null;
    try {
      recovered = await recoverTurn(agent, options);
    } catch (error) {
      logger.error("turn.resume_failed session={session} error={error}", {
        session: sessionId,
        error,
      });
    }
    this.#checked.add(tapeName);
    return recovered;
  }
}

function _isEvent(entry: { kind: string; payload: Record<string, unknown> }, name: string) {
  return entry.kind === "event" && entry.payload.name === name;
}

/**
 * The origin an interrupted turn's `loop.start` recorded, or null (a turn from before origins
 * were recorded, or a direct `Agent` call).
 */
export function interruptedOrigin(turn: InterruptedTurn): RecordedOrigin | null {
  for (const entry of turn.entries) {
    if (!_isEvent(entry, "loop.start") || !isRecord(entry.payload.data)) continue;
    const origin = entry.payload.data.origin;
    if (!isRecord(origin) || typeof origin.session_id !== "string") return null;
    const text = (value: unknown) => typeof value === "string" && value !== "" ? value : null;
    return {
      session_id: origin.session_id,
      channel: text(origin.channel),
      chat_id: text(origin.chat_id),
      sender: text(origin.sender),
      output_channel: text(origin.output_channel),
    };
  }
  return null;
}

/** `{origin}` for `loop.start` when the turn came from a channel (empty for direct calls). */
export function recordedOrigin(sessionId: string, state: TurnState): Record<string, unknown> {
  const raw = state[TURN_ORIGIN_STATE_KEY];
  if (raw === undefined) return {};
  const output = (raw as { output_channel?: unknown } | null)?.output_channel;
  return {
    origin: {
      session_id: sessionId,
      ...turnOrigin(state),
      ...(typeof output === "string" && output !== "" ? { output_channel: output } : {}),
    },
  };
}
