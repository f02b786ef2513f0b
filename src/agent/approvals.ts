/**
 * Approval records on the tape: a held tool call's `approval.requested` (and its
 * `approval.index` on the workspace's approvals tape, so that any session of any process can
 * find it by id), `approval.decided` and an "always" approval's `approval.grant`; reading them
 * back ({@link readApprovals}) and the text that tells the user what is asked
 * ({@link approvalRequestText}). Nothing is kept in memory: the tape is the state.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import type { HeldCall } from "../kernel/stream_events.ts";
import type { TurnState } from "../kernel/turn.ts";
import type { Tape } from "../tape/tape.ts";

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
 * {@link recordApprovalRequests}): the builtin's `renderOutbound` hands them to the channel
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

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/**
 * A new approval id: 10 characters of base32 from the system's random source (50 bits).
 */
export function newApprovalId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return Array.from(bytes, (byte) => BASE32[byte & 31]).join("");
}

/** The {@link TurnOrigin} of a turn state (all null when the state has none). */
export function turnOrigin(state: TurnState): TurnOrigin {
  const origin = state[TURN_ORIGIN_STATE_KEY];
  const text = (value: unknown) => typeof value === "string" && value !== "" ? value : null;
  if (!isRecord(origin)) return { channel: null, chat_id: null, sender: null };
  return {
    channel: text(origin.channel),
    chat_id: text(origin.chat_id),
    sender: text(origin.sender),
  };
}

/** Options of {@link recordApprovalRequests}. */
export interface RecordApprovalRequestsOptions {
  /** The turn's tape (the fork). */
  tape: Tape;
  /** The workspace's approvals index tape. */
  index: Tape;
  /** The turn state (its session id and {@link TurnOrigin}). */
  state: TurnState;
  /** The step that held the calls. */
  step: number;
  /** The held calls. */
  held: readonly HeldCall[];
  /** Configured approvers besides the owner. */
  approvers?: readonly string[] | null;
  /** Seconds until a request expires. Default one day. */
  timeoutSeconds?: number | null;
  /** The clock. Default `Date.now`. */
  now?: () => number;
}

/**
 * Records one `approval.requested` per held call on the turn's tape and an `approval.index` per
 * id on the index tape; returns the requests.
 */
export async function recordApprovalRequests(
  options: RecordApprovalRequestsOptions,
): Promise<ApprovalRequest[]> {
  const { tape, index, state, step } = options;
  const origin = turnOrigin(state);
  const now = (options.now ?? Date.now)();
  const seconds = options.timeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS;
  const approvers = [
    ...new Set([...(origin.sender === null ? [] : [origin.sender]), ...(options.approvers ?? [])]),
  ];
  const requests: ApprovalRequest[] = options.held.map((held) => ({
    id: newApprovalId(),
    call_id: held.callId,
    tool: held.tool,
    arguments: held.arguments,
    reason: held.reason,
    match: held.match,
    step,
    owner: origin.sender,
    approvers,
    expires_at: new Date(now + seconds * 1000).toISOString(),
    session_id: String(state.session_id ?? ""),
    channel: origin.channel,
    chat_id: origin.chat_id,
  }));
  for (const request of requests) {
    await tape.appendEvent("approval.requested", { ...request });
  }
  for (const { id, session_id, channel, chat_id } of requests) {
    await index.appendEvent("approval.index", { id, session_id, channel, chat_id });
  }
  const asked = Array.isArray(state[APPROVALS_ASKED_STATE_KEY])
    ? state[APPROVALS_ASKED_STATE_KEY] as unknown[]
    : [];
  state[APPROVALS_ASKED_STATE_KEY] = [...asked, ...requests.map(({ id, tool }) => ({ id, tool }))];
  return requests;
}

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

/** `text` cut to `limit` characters with `…` at the end. */
function shorten(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/**
 * The text that tells the user what is asked: per request the tool, its shortened arguments,
 * the reason and the literal commands `,approve <id>` and `,deny <id>`.
 */
export function approvalRequestText(requests: readonly ApprovalRequest[]): string {
  const lines = requests.map((request) => {
    const args = shorten(JSON.stringify(request.arguments), 200);
    const reason = request.reason ? ` (${request.reason})` : "";
    return `Approval needed: ${request.tool} ${args}${reason}.\n` +
      `Reply ,approve ${request.id} to run it (,approve ${request.id} always: also later ` +
      `calls like it in this session), or ,deny ${request.id} [reason]. ` +
      `Expires ${request.expires_at}.`;
  });
  return lines.join("\n\n");
}
