/**
 * Private: recording approval decisions on the asking session's tape, the texts of a decision
 * (what the model receives for a denied or expired call; how a decision is reported), and one
 * decision at a time per asking session in this process.
 *
 * @module
 */
import type { ApprovalDecision, ApprovalRequest } from "../agent/approvals.ts";
import type { Tape } from "../tape/tape.ts";

/** One decision at a time per asking session in this process (check, record, resume start). */
const locks = new Map<string, Promise<unknown>>();

/** Runs `run` after every earlier `run` of the same `key` has settled. */
export async function serialized<T>(key: string, run: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const current = previous.then(run, run);
  const settled = current.catch(() => {});
  locks.set(key, settled);
  try {
    return await current;
  } finally {
    if (locks.get(key) === settled) locks.delete(key);
  }
}

/** Records a decision: `approval.decided`, an "always" grant, and a refused call's end. */
export async function record(
  tape: Tape,
  request: ApprovalRequest,
  decision: ApprovalDecision,
): Promise<void> {
  await tape.appendEvent("approval.decided", { ...decision });
  if (decision.always) {
    await tape.appendEvent("approval.grant", { tool: request.tool, match: request.match });
  }
  if (decision.decision !== "approve") {
    await tape.appendEvent("tool.end", {
      call_id: request.call_id,
      status: "denied",
      result: denialText(decision),
    });
  }
}

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
