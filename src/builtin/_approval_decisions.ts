/**
 * Private: recording approval decisions on the asking session's tape, the texts of a decision
 * (what the model receives for a denied or expired call; how a decision is reported), and one
 * decision at a time per asking session in this process. Across processes a decision is a
 * compare-and-swap on the tape ({@link recordIfLast}): the first one recorded wins.
 *
 * @module
 */
import type { ApprovalDecision, ApprovalRequest, SessionApprovals } from "../agent/approvals.ts";
import { type CallOutcome, findSuspendedTurn } from "../agent/turn_resume.ts";
import { BubError } from "../kernel/errors.ts";
import { createEntry, type TapeEntry } from "../tape/entry.ts";
import { appendIfLast } from "../tape/store.ts";
import type { Tape } from "../tape/tape.ts";

/** One decision at a time per asking session in each framework (check, record, resume start). */
const locks = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * Runs `run` after every earlier `run` of the same `key` in `scope` (a framework's runtime) has
 * settled. Only an optimisation within one framework: across frameworks and processes the
 * decision's compare-and-swap on the tape decides.
 */
export async function serialized<T>(scope: object, key: string, run: () => Promise<T>): Promise<T> {
  let keyed = locks.get(scope);
  if (keyed === undefined) locks.set(scope, keyed = new Map());
  const previous = keyed.get(key) ?? Promise.resolve();
  const current = previous.then(run, run);
  const settled = current.catch(() => {});
  keyed.set(key, settled);
  try {
    return await current;
  } finally {
    if (keyed.get(key) === settled) keyed.delete(key);
  }
}

/** The entries of a decision: `approval.decided`, an "always" grant, and a refused call's end. */
export function decisionEntries(
  request: ApprovalRequest,
  decision: ApprovalDecision,
): TapeEntry[] {
  const event = (name: string, data: Record<string, unknown>) =>
    createEntry("event", { name, data });
  const entries = [event("approval.decided", { ...decision })];
  if (decision.always) {
    entries.push(event("approval.grant", { tool: request.tool, match: request.match }));
  }
  if (decision.decision !== "approve") {
    entries.push(event("tool.end", {
      call_id: request.call_id,
      status: "denied",
      result: denialText(decision),
    }));
  }
  return entries;
}

/**
 * Records decisions as one batch only when the tape's newest id is still `lastId` (read before
 * the tape was read to take them): false, recording nothing, when anything was appended since —
 * the caller reads again (another process may have decided the same id first).
 */
export async function recordIfLast(
  tape: Tape,
  decisions: readonly { request: ApprovalRequest; decision: ApprovalDecision }[],
  lastId: number,
): Promise<boolean> {
  const entries = decisions.flatMap(({ request, decision }) => decisionEntries(request, decision));
  return await appendIfLast(tape.store, tape.name, entries, lastId);
}

/** How often a decision is tried again after losing a compare-and-swap to an unrelated append. */
export const DECISION_ATTEMPTS = 50;

/** What the model receives for a denied or expired call. */
export function denialText(decision: ApprovalDecision): string {
  if (decision.decision === "expired") return "approval expired";
  return `denied by ${decision.by}: ${decision.reason || "no reason given"}`;
}

/** How a decision is reported. */
export function said(decision: ApprovalDecision): string {
  if (decision.decision === "expired") return "it expired";
  return `${decision.decision === "approve" ? "approved" : "denied"} by ${decision.by}`;
}

/**
 * The turn-state key of how an `,approve` / `,deny` command went (an {@link ApprovalOutcome});
 * the builtin's `renderOutbound` puts it on the answer's context (`approval_outcome`), so that
 * a channel can show it (Telegram answers the pressed button and edits its message).
 */
export const APPROVAL_OUTCOME_STATE_KEY = "_runtime_approval_outcome";

/** How a decision command went. */
export interface ApprovalOutcome {
  /** The approval id named. */
  id: string;
  /** Recorded (`approved`, `denied`, `expired`), or why not. */
  status: "approved" | "denied" | "expired" | "refused" | "already_decided" | "unknown";
  /** How it was decided (`approved by 42`, `it expired`), when it is. */
  by?: string;
}

/** What deciding leaves of the suspended step: the outcomes, or the ids that still wait. */
export interface SettlePlan {
  /** The suspended step. */
  step: number;
  /** The step's call ids held for approval (decided or not). */
  held: string[];
  outcomes: Record<string, CallOutcome>;
  waiting: string[];
}

/**
 * The suspended step's plan with `requests`' decisions (as they will be once recorded), or null
 * when the session's turn is not suspended.
 */
export async function settlePlan(
  tape: Tape,
  requests: SessionApprovals["requests"],
): Promise<SettlePlan | null> {
  const suspended = await findSuspendedTurn(tape);
  if (suspended === null) return null;
  const byCall = new Map(requests.map((entry) => [entry.request.call_id, entry]));
  const outcomes: Record<string, CallOutcome> = {};
  const waiting: string[] = [];
  const held: string[] = [];
  for (const call of suspended.calls) {
    const entry = byCall.get(call.id);
    if (entry !== undefined) held.push(call.id);
    if (entry === undefined || suspended.completed.has(call.id)) continue;
    if (entry.decision === null) waiting.push(entry.request.id);
    else if (entry.decision.decision === "approve") outcomes[call.id] = { kind: "run" };
    else outcomes[call.id] = { kind: "result", result: denialText(entry.decision), ok: false };
  }
  return { step: suspended.step, held, outcomes, waiting };
}

export function decisionStatus(decision: ApprovalDecision): ApprovalOutcome["status"] {
  return decision.decision === "approve"
    ? "approved"
    : decision.decision === "deny"
    ? "denied"
    : "expired";
}

/** The error of a decision that kept losing its compare-and-swap to other appends. */
export function contended(sessionId: string): BubError {
  return new BubError(
    "temporary",
    `Cannot record the approval decision: the tape of session ${sessionId} kept changing ` +
      `(${DECISION_ATTEMPTS} attempts); try again`,
  );
}

/** What a command asks for. */
export type Wanted = { decision: "approve"; always: boolean } | {
  decision: "deny";
  reason: string;
};

/**
 * The decision `wanted` of `request` by `decider` at `now` (expired when it is past its expiry),
 * and how it is answered.
 */
export function decisionOf(
  request: ApprovalRequest,
  wanted: Wanted,
  decider: string | null,
  now: number,
): { decision: ApprovalDecision; answer: string } {
  const { id } = request;
  const by = decider ?? "the user";
  if (Date.parse(request.expires_at) <= now) {
    return {
      decision: { id, decision: "expired", by: "expiry" },
      answer: `Approval ${id} expired at ${request.expires_at}; the model is told so.`,
    };
  }
  if (wanted.decision === "approve") {
    return {
      decision: { id, decision: "approve", by, ...(wanted.always ? { always: true } : {}) },
      answer: `Approved ${id}${wanted.always ? " (always, in this session)" : ""}.`,
    };
  }
  const reason = wanted.reason ? { reason: wanted.reason } : {};
  return { decision: { id, decision: "deny", by, ...reason }, answer: `Denied ${id}.` };
}

/**
 * The listing lines of the pending requests, and the expired ones not recorded yet (their
 * decision is set on `requests`' items, to be recorded).
 */
export function pendingOrExpired(
  requests: SessionApprovals["requests"],
  now: number,
): { lines: string[]; expired: { request: ApprovalRequest; decision: ApprovalDecision }[] } {
  const lines: string[] = [];
  const expired: { request: ApprovalRequest; decision: ApprovalDecision }[] = [];
  for (const item of requests) {
    const { request, decision, askedAt } = item;
    if (decision !== null) continue;
    if (Date.parse(request.expires_at) <= now) {
      item.decision = { id: request.id, decision: "expired", by: "expiry" };
      expired.push({ request, decision: item.decision });
      continue;
    }
    const age = Math.max(0, Math.round((now - Date.parse(askedAt)) / 1000));
    lines.push(
      `${request.id}  ${request.tool}  ${request.reason || "-"}  asked ${age}s ago, ` +
        `expires ${request.expires_at}`,
    );
  }
  return { lines, expired };
}
