/**
 * The approval comma commands: `,approve <id> [always]`, `,deny <id> [reason]` and
 * `,approvals`. An id is found through the workspace's approvals index tape, so a decision may
 * come from any session, channel or process; the decision is recorded on the asking session's
 * tape, and once every held call of its suspended step is decided the turn resumes there: in this
 * turn's stream when the decision came from the same session, else as a turn of its own whose
 * answer goes to the asking session's channel and chat. Expiry is checked when a request is
 * touched (decided or listed); an expired request is recorded `expired` then.
 *
 * @module
 */
import { getLogger } from "../_internal/log.ts";
import {
  APPROVAL_INDEX_SESSION,
  type ApprovalRequest,
  findApprovalSession,
  readApprovals,
  TURN_ORIGIN_STATE_KEY,
  turnOrigin,
} from "../agent/approvals.ts";
import { type CallOutcome, findSuspendedTurn } from "../agent/turn_resume.ts";
import { ChannelMessage } from "../kernel/channel_message.ts";
import { AsyncStreamEvents, type StreamEvent } from "../kernel/stream.ts";
import type { TurnState } from "../kernel/turn.ts";
import type { Tape } from "../tape/tape.ts";
import type { BuiltinRuntime } from "./runtime.ts";
import { denialText, record, said, serialized } from "./_approval_decisions.ts";

const logger = getLogger(["bub", "approvals"]);

/** Inbound envelopes made to resume a turn in another session, with their outcomes. */
const resumes = new WeakMap<object, Record<string, CallOutcome>>();

/** The turn-state key of a resumed turn's outcomes (set by `loadState`). */
export const RESUME_STATE_KEY = "_runtime_approval_resume";

/** The turn-state key that says the session's last turn is suspended (set by `loadState`). */
export const SUSPENDED_STATE_KEY = "_runtime_turn_suspended";

/** The outcomes a resume envelope carries, or null (only envelopes made here carry any). */
export function resumeOutcomesOf(message: unknown): Record<string, CallOutcome> | null {
  return typeof message === "object" && message !== null ? resumes.get(message) ?? null : null;
}

/** True for `,approve`, `,deny` and `,approvals` lines. */
export function isApprovalCommand(text: string): boolean {
  return /^\s*,(approve|deny|approvals)(\s|$)/.test(text);
}

/** What a command runs with. */
export interface ApprovalCommandArgs {
  /** The line, with its comma. */
  line: string;
  /** The session the line came from. */
  sessionId: string;
  /** The turn state (its origin names the decider). */
  state: TurnState;
  /** Cancels a resumed turn. */
  signal?: AbortSignal;
  /** The clock. Default `Date.now`. */
  now?: () => number;
}

function textEvents(text: string, rest: AsyncStreamEvents | null = null): AsyncStreamEvents {
  async function* events(): AsyncGenerator<StreamEvent> {
    yield { kind: "text", data: { delta: text } };
    if (rest === null) {
      yield { kind: "final", data: { text, ok: true } };
      return;
    }
    yield { kind: "text", data: { delta: "\n\n" } };
    yield* rest;
  }
  return new AsyncStreamEvents(events(), rest === null ? {} : { state: rest.state });
}

/** Runs an approval command; its answer (and a resumed turn of this session) as a stream. */
export async function runApprovalCommand(
  runtime: BuiltinRuntime,
  args: ApprovalCommandArgs,
): Promise<AsyncStreamEvents> {
  const [name = "", id = "", ...rest] = args.line.trim().slice(1).split(/\s+/);
  const deps = new Approvals(runtime, args);
  if (name === "approvals") {
    const blocked = args.state[SUSPENDED_STATE_KEY] === true && !isApprovalCommand(args.line);
    return await serialized(args.sessionId, () => deps.list(blocked));
  }
  if (id === "") {
    return textEvents(`Usage: ,${name} <id>${name === "deny" ? " [reason]" : " [always]"}`);
  }
  if (name === "approve" && rest.length > 0 && (rest.length > 1 || rest[0] !== "always")) {
    return textEvents(`Usage: ,approve <id> [always] (got "${rest.join(" ")}")`);
  }
  const decision = name === "approve"
    ? { decision: "approve" as const, always: rest[0] === "always" }
    : { decision: "deny" as const, reason: rest.join(" ") };
  return await deps.decide(id, decision);
}

/** The answer to a message sent while the session's turn waits for approvals. */
export function runPendingNotice(
  runtime: BuiltinRuntime,
  args: ApprovalCommandArgs,
): Promise<AsyncStreamEvents> {
  const deps = new Approvals(runtime, args);
  return serialized(args.sessionId, () => deps.list(true));
}

type Wanted = { decision: "approve"; always: boolean } | { decision: "deny"; reason: string };

/** One command's view of the approvals. */
class Approvals {
  #runtime: BuiltinRuntime;
  #args: ApprovalCommandArgs;
  #decider: string | null;

  constructor(runtime: BuiltinRuntime, args: ApprovalCommandArgs) {
    this.#runtime = runtime;
    this.#args = args;
    this.#decider = turnOrigin(args.state).sender;
  }

  #tape(sessionId: string): Tape {
    return this.#runtime.agent.sessionTape(sessionId, this.#args.state);
  }

  #now(): number {
    return (this.#args.now ?? Date.now)();
  }

  #mayDecide(request: ApprovalRequest): boolean {
    const decider = this.#decider;
    if (decider === null) return request.owner === null;
    return request.approvers.includes(decider) ||
      this.#runtime.approvalSettings.approvers.includes(decider);
  }

  /**
   * `,approvals`: the pending requests of this session. Expired ones are recorded so, and when
   * that decides the suspended step the turn resumes here. `blocked`: the answer to a message
   * that came while the turn waits.
   */
  async list(blocked: boolean): Promise<AsyncStreamEvents> {
    const sessionId = this.#args.sessionId;
    const tape = this.#tape(sessionId);
    const { requests } = await readApprovals(tape);
    const lines: string[] = [];
    let expired = 0;
    for (const { request, decision, askedAt } of requests) {
      if (decision !== null) continue;
      if (Date.parse(request.expires_at) <= this.#now()) {
        await record(tape, request, { id: request.id, decision: "expired", by: "expiry" });
        expired++;
        continue;
      }
      const age = Math.max(0, Math.round((this.#now() - Date.parse(askedAt)) / 1000));
      lines.push(
        `${request.id}  ${request.tool}  ${request.reason || "-"}  asked ${age}s ago, ` +
          `expires ${request.expires_at}`,
      );
    }
    const head = blocked
      ? "This session's turn waits for approval; decide first (,approve <id> / ,deny <id>):"
      : "Pending approvals (,approve <id> / ,deny <id>):";
    let text = lines.length === 0
      ? "No pending approvals in this session."
      : `${head}\n${lines.join("\n")}`;
    if (expired > 0) text = `${expired} approval(s) expired; the model is told so.\n${text}`;
    if (expired === 0 && !(blocked && lines.length === 0)) return textEvents(text);
    return await this.#settle(sessionId, tape, null, text, this.#args.state);
  }

  /** `,approve` / `,deny`: records the decision and resumes the turn once its step is decided. */
  async decide(id: string, wanted: Wanted): Promise<AsyncStreamEvents> {
    const sessionId = await findApprovalSession(this.#tape(APPROVAL_INDEX_SESSION), id);
    const unknown = `Unknown approval id "${id}". ,approvals lists the pending ones.`;
    if (sessionId === null) return textEvents(unknown);
    return await serialized(sessionId, () => this.#decideIn(sessionId, id, wanted, unknown));
  }

  async #decideIn(
    sessionId: string,
    id: string,
    wanted: Wanted,
    unknown: string,
  ): Promise<AsyncStreamEvents> {
    const { state } = this.#args;
    const tape = this.#tape(sessionId);
    const item = (await readApprovals(tape)).requests.find((entry) => entry.request.id === id);
    if (!item) return textEvents(unknown);
    const { request } = item;
    if (!this.#mayDecide(request)) {
      logger.warn("approval.refused id={id} session={session} sender={sender}", {
        id,
        session: sessionId,
        sender: this.#decider ?? "-",
      });
      return textEvents(
        `You may not decide approval ${id}: only the session's owner and the configured ` +
          "approvers can.",
      );
    }
    if (item.decision !== null) {
      return textEvents(`Approval ${id} was already decided: ${said(item.decision)}.`);
    }
    const by = this.#decider ?? "the user";
    let answer: string;
    if (Date.parse(request.expires_at) <= this.#now()) {
      await record(tape, request, { id, decision: "expired", by: "expiry" });
      answer = `Approval ${id} expired at ${request.expires_at}; the model is told so.`;
    } else if (wanted.decision === "approve") {
      await record(tape, request, {
        id,
        decision: "approve",
        by,
        ...(wanted.always ? { always: true as const } : {}),
      });
      answer = `Approved ${id}${wanted.always ? " (always, in this session)" : ""}.`;
    } else {
      await record(tape, request, {
        id,
        decision: "deny",
        by,
        ...(wanted.reason ? { reason: wanted.reason } : {}),
      });
      answer = `Denied ${id}.`;
    }
    return await this.#settle(sessionId, tape, request, answer, state);
  }

  /** Resumes the asking session's turn when every held call of its step is decided. */
  async #settle(
    sessionId: string,
    tape: Tape,
    request: ApprovalRequest | null,
    answer: string,
    state: TurnState,
  ): Promise<AsyncStreamEvents> {
    const suspended = await findSuspendedTurn(tape);
    if (suspended === null) return textEvents(answer);
    const { requests } = await readApprovals(tape);
    const byCall = new Map(requests.map((entry) => [entry.request.call_id, entry]));
    const outcomes: Record<string, CallOutcome> = {};
    const waiting: string[] = [];
    for (const call of suspended.calls) {
      const entry = byCall.get(call.id);
      if (entry === undefined || suspended.completed.has(call.id)) continue;
      if (entry.decision === null) waiting.push(entry.request.id);
      else if (entry.decision.decision === "approve") outcomes[call.id] = { kind: "run" };
      else outcomes[call.id] = { kind: "result", result: denialText(entry.decision), ok: false };
    }
    if (waiting.length > 0) {
      const next = waiting.map((other) => `,approve ${other}`).join(", ");
      return textEvents(`${answer} The turn goes on once the rest is decided: ${next}.`);
    }
    if (sessionId === this.#args.sessionId || request === null) {
      const resumed = await this.#runtime.agent.resumeTurn({
        sessionId,
        state,
        outcomes,
        signal: this.#args.signal,
      });
      return textEvents(answer, resumed);
    }
    const target = `${request.channel ?? "default"}:${request.chat_id ?? "default"}`;
    const inbound = new ChannelMessage({
      sessionId,
      channel: request.channel ?? "default",
      chatId: request.chat_id ?? "default",
      content: `,approve ${request.id}`,
      context: { sender_id: request.owner ?? "" },
    });
    resumes.set(inbound, outcomes);
    await this.#runtime.framework.processInbound(inbound, { stream: true });
    return textEvents(`${answer} The answer went to ${target}.`);
  }
}

export { TURN_ORIGIN_STATE_KEY };
