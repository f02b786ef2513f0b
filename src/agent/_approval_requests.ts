/**
 * Private: asking for approval. A step that held tool calls records one `approval.requested` per
 * call on the turn's tape (with its owner, approvers and expiry) and one `approval.index` per id on
 * the workspace's approvals tape, so that any session of any process can find it by id; the text
 * it answers with tells the user what is asked and how to decide.
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import type { HeldCall } from "../kernel/stream_events.ts";
import type { TurnState } from "../kernel/turn.ts";
import type { Tape } from "../tape/tape.ts";
import {
  type ApprovalRequest,
  APPROVALS_ASKED_STATE_KEY,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  TURN_ORIGIN_STATE_KEY,
  type TurnOrigin,
} from "./approval_records.ts";

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
