/**
 * Private: what an answer carries about approvals to its channel (the builtin's
 * `renderOutbound`). An answer that asks for approvals, or tells that the session's turn waits
 * for them, is Bub's own text: it goes to the inbound's channel even when the model answers
 * through a tool there (`outputChannel: "null"`, Telegram), so the user sees what is asked. Its
 * context names the requests (`approval_requests: [{id, tool}]`, for buttons); the answer to a
 * decision command names its outcome (`approval_outcome`, an `ApprovalOutcome`); and the
 * channel's own `_reply_context` of the inbound (a pressed button) comes back with the answer.
 *
 * @module
 */
import { APPROVALS_ASKED_STATE_KEY } from "../agent/approvals.ts";
import type { InboundMessage } from "../kernel/inbound.ts";
import type { TurnState } from "../kernel/turn.ts";
import { APPROVAL_OUTCOME_STATE_KEY } from "./_approval_decisions.ts";
import { APPROVAL_NOTICE_STATE_KEY } from "./approval_commands.ts";

/** The outbound's channel override (null: as the inbound says) and its context. */
export function approvalOutbound(
  inbound: InboundMessage,
  state: TurnState,
): { outputChannel: string | null; context: Record<string, unknown> } {
  const context: Record<string, unknown> = {};
  const asked = state[APPROVALS_ASKED_STATE_KEY];
  if (Array.isArray(asked) && asked.length > 0) context.approval_requests = asked;
  const outcome = state[APPROVAL_OUTCOME_STATE_KEY];
  if (outcome !== undefined) context.approval_outcome = outcome;
  const reply = inbound.context._reply_context;
  if (reply !== undefined) context._reply_context = reply;
  const own = context.approval_requests !== undefined || state[APPROVAL_NOTICE_STATE_KEY] === true;
  const muted = inbound.outputChannel === "null" && inbound.channel !== null;
  return { outputChannel: own && muted ? inbound.channel : null, context };
}
