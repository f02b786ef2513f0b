/**
 * Approval records on the tape, read back: a session's requests with their decisions and its
 * "always" approvals ({@link readApprovals}), the pending ones, the sessions that asked, the
 * session of an approval id, and whether a grant covers a held call. The records themselves are
 * `approval_records.ts`; asking (recording the requests and the text that tells the user what is
 * asked) is `_approval_requests.ts`. Nothing is kept in memory: the tape is the state.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import type { HeldCall } from "../kernel/stream_events.ts";
import type { Tape } from "../tape/tape.ts";
import type {
  ApprovalDecision,
  ApprovalGrant,
  ApprovalRequest,
  SessionApprovals,
} from "./approval_records.ts";

export {
  APPROVAL_INDEX_SESSION,
  type ApprovalDecision,
  type ApprovalGrant,
  type ApprovalRequest,
  APPROVALS_ASKED_STATE_KEY,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  type SessionApprovals,
  TURN_ORIGIN_STATE_KEY,
  type TurnOrigin,
} from "./approval_records.ts";
export {
  approvalRequestText,
  newApprovalId,
  recordApprovalRequests,
  type RecordApprovalRequestsOptions,
  turnOrigin,
} from "./_approval_requests.ts";

/** The session id of approval `id` from the index tape, or null for an unknown id. */
export async function findApprovalSession(index: Tape, id: string): Promise<string | null> {
  const events = await index.query().kinds("event").all();
  for (let i = events.length - 1; i >= 0; i--) {
    const { name, data } = events[i]!.payload as { name?: unknown; data?: unknown };
    if (name === "approval.index" && isRecord(data) && data.id === id) {
      return typeof data.session_id === "string" ? data.session_id : null;
    }
  }
  return null;
}

/**
 * The approval requests, decisions and grants on a session tape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { readApprovals } from "@bub/core/agent";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("t");
 * const { requests } = await readApprovals(tape);
 * const pending = requests.filter((item) => item.decision === null);
 * assert.equal(pending.length, 0);
 * ```
 */
export async function readApprovals(tape: Tape): Promise<SessionApprovals> {
  const events = await tape.query().kinds("event").all();
  const byId = new Map<string, SessionApprovals["requests"][number]>();
  const grants: ApprovalGrant[] = [];
  for (const entry of events) {
    const { name, data } = entry.payload as { name?: unknown; data?: unknown };
    if (!isRecord(data)) continue;
    if (name === "approval.requested" && typeof data.id === "string") {
      const request = data as unknown as ApprovalRequest;
      byId.set(data.id, { request, decision: null, askedAt: String(entry.date ?? "") });
    } else if (name === "approval.decided" && typeof data.id === "string") {
      const item = byId.get(data.id);
      if (item && item.decision === null) item.decision = data as unknown as ApprovalDecision;
    } else if (name === "approval.grant" && typeof data.tool === "string") {
      grants.push({ tool: data.tool, match: typeof data.match === "string" ? data.match : null });
    }
  }
  return { requests: [...byId.values()], grants };
}

/**
 * The requests on a session tape that nobody has decided and that have not expired, oldest first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { pendingApprovals } from "@bub/core/agent";
 * const tape = new Tape({ store: new InMemoryTapeStore() }).scoped("t");
 * assert.deepEqual(await pendingApprovals(tape), []);
 * ```
 */
export async function pendingApprovals(
  tape: Tape,
  now: Date = new Date(),
): Promise<ApprovalRequest[]> {
  const { requests } = await readApprovals(tape);
  return requests
    .filter((item) => item.decision === null && Date.parse(item.request.expires_at) > now.getTime())
    .map((item) => item.request);
}

/**
 * The session ids the approvals index tape names (each session that ever asked), once each.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InMemoryTapeStore, Tape } from "@bub/core";
 * import { askingSessions } from "@bub/core/agent";
 * const index = new Tape({ store: new InMemoryTapeStore() }).scoped("index");
 * await index.appendEvent("approval.index", { id: "abcdefghij", session_id: "telegram:42" });
 * assert.deepEqual(await askingSessions(index), ["telegram:42"]);
 * ```
 */
export async function askingSessions(index: Tape): Promise<string[]> {
  const sessions = new Set<string>();
  for (const entry of await index.query().kinds("event").all()) {
    const { name, data } = entry.payload as { name?: unknown; data?: unknown };
    if (name === "approval.index" && isRecord(data) && typeof data.session_id === "string") {
      sessions.add(data.session_id);
    }
  }
  return [...sessions];
}

/** True when an "always" approval covers `held` (same tool, same pattern). */
export function grantCovers(grants: readonly ApprovalGrant[], held: HeldCall): boolean {
  return grants.some((grant) => grant.tool === held.tool && grant.match === held.match);
}
