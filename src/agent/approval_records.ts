/**
 * What approvals leave behind: the data of the approval events on a session tape
 * (`approval.requested`, `approval.decided`, an "always" approval's `approval.grant`), the session
 * whose tape indexes every approval id of a workspace (`approval.index`), and the turn-state keys
 * that carry a turn's origin and the requests it asked for. The tape is the state: asking is
 * `_approval_requests.ts`, reading back `approvals.ts`.
 *
 * @module
 */

/**
 * The session whose tape indexes every approval id of a workspace (`approval.index` events).
 *
 * @example
 * ```ts
 * import { APPROVAL_INDEX_SESSION } from "@bub/core/agent";
 * import { sessionTapeName } from "@bub/core/tape";
 * const indexTape = sessionTapeName(APPROVAL_INDEX_SESSION, "/work");
 * ```
 */
export const APPROVAL_INDEX_SESSION = "bub:approvals";

/** The default of `approval_timeout_seconds`: one day. */
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 86400;

/**
 * Where the turn's inbound came from (the builtin's `loadState` sets it): who owns the session
 * and where its answers go.
 */
export interface TurnOrigin {
  /** The inbound's channel. */
  channel: string | null;
  /** The inbound's chat id. */
  chat_id: string | null;
  /** The sender's user id, or null when the channel names none. */
  sender: string | null;
}

/**
 * The turn-state key of the requests a turn asked for (`[{id, tool}]`, appended by
 * `recordApprovalRequests`): the builtin's `renderOutbound` hands them to the channel
 * (Telegram shows them as buttons) and sends the answer to the user's channel.
 */
export const APPROVALS_ASKED_STATE_KEY = "_runtime_approvals_asked";

/** The turn-state key of the {@link TurnOrigin}. */
export const TURN_ORIGIN_STATE_KEY = "_runtime_origin";

/**
 * An `approval.requested` event's data.
 *
 * @example
 * ```ts
 * import type { ApprovalRequest } from "@bub/core/agent";
 * const request: ApprovalRequest = {
 *   id: "k2v7qx4mzt", call_id: "call_1", tool: "bash", arguments: { command: "rm -r build" },
 *   reason: "deletes files", match: null, step: 1, owner: "42", approvers: ["42"],
 *   expires_at: "2026-01-02T00:00:00.000Z", session_id: "telegram:42", channel: "telegram", chat_id: "42",
 * };
 * ```
 */
export interface ApprovalRequest {
  /** The approval id (10 base32 characters). */
  id: string;
  /** The held call's id. */
  call_id: string | null;
  /** The tool's own name. */
  tool: string;
  /** The call's arguments. */
  arguments: Record<string, unknown>;
  /** Why it needs approval. */
  reason: string;
  /** The pattern an "always" approval covers (null: every call of the tool). */
  match: string | null;
  /** The step of the turn that asked. */
  step: number;
  /** The user who owns the session (the sender of the inbound that started the turn). */
  owner: string | null;
  /** Who may decide: the owner and the configured approvers. */
  approvers: string[];
  /** When the request expires (ISO 8601). */
  expires_at: string;
  /** The session that asked. */
  session_id: string;
  /** Where the session's answers go. */
  channel: string | null;
  /** The chat of the session. */
  chat_id: string | null;
}

/**
 * An `approval.decided` event's data.
 *
 * @example
 * ```ts
 * import type { ApprovalDecision } from "@bub/core/agent";
 * const decision: ApprovalDecision = { id: "abcdefghij", decision: "deny", by: "42", reason: "not now" };
 * ```
 */
export interface ApprovalDecision {
  /** The approval id. */
  id: string;
  /** What was decided. */
  decision: "approve" | "deny" | "expired";
  /** Set for an approval that also covers later calls of the same tool and pattern. */
  always?: true;
  /** Who decided (a user id; `expiry` for an expired request). */
  by: string;
  /** Why (a denial's reason). */
  reason?: string;
}

/**
 * An "always" approval: later asks for this tool and pattern in the session proceed.
 *
 * @example
 * ```ts
 * import type { ApprovalGrant } from "@bub/core/agent";
 * const grant: ApprovalGrant = { tool: "bash", match: null };
 * ```
 */
export interface ApprovalGrant {
  /** The tool's own name. */
  tool: string;
  /** The pattern it covers (null: every call of the tool). */
  match: string | null;
}

/**
 * What a session tape says about its approvals.
 *
 * @example
 * ```ts
 * import type { SessionApprovals } from "@bub/core/agent";
 * const none: SessionApprovals = { requests: [], grants: [] };
 * ```
 */
export interface SessionApprovals {
  /** Every request, in tape order, with its decision (null while pending) and its date. */
  requests: { request: ApprovalRequest; decision: ApprovalDecision | null; askedAt: string }[];
  /** The session's "always" approvals. */
  grants: ApprovalGrant[];
}
