/**
 * Permissions are approvals: a tool call held for approval (an `approvals:` rule, a plugin's
 * `ask`, or the editor's "ask" mode) becomes `session/request_permission` with allow once /
 * allow always / reject, and the editor's answer runs the same `,approve <id>` / `,approve <id>
 * always` / `,deny <id>` any channel would — recorded on the tape, durable, "always" sticky. A
 * request the editor does not answer (it disconnects, or cancels) stays pending on the tape and can
 * be decided later from any channel.
 *
 * @module
 */
import { type ApprovalRequest, pendingApprovals } from "../../agent/approvals.ts";
import { Tape } from "../../tape/tape.ts";
import type { TapeStore } from "../../tape/store.ts";
import { toolView } from "./tool_view.ts";

/** The options offered for every request, and the command each runs. */
const OPTIONS = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once", command: "" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always", command: " always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once", command: null },
] as const;

/** The undecided, unexpired approval requests of tape `name`, oldest first. */
export async function pendingRequests(store: TapeStore, name: string): Promise<ApprovalRequest[]> {
  if (!(await store.listTapes()).includes(name)) return [];
  return await pendingApprovals(new Tape({ store }).scoped(name));
}

/** The `session/request_permission` params of `request` (plain JSON of the protocol's type). */
export function permissionParams(
  sessionId: string,
  request: ApprovalRequest,
  workspace: string,
): Record<string, unknown> {
  const view = toolView(request.tool, request.arguments, workspace);
  const reason = request.reason ? ` (${request.reason})` : "";
  return {
    sessionId,
    toolCall: {
      toolCallId: request.call_id ?? request.id,
      title: `${view.title}${reason}`,
      kind: view.kind,
      status: "pending",
      locations: view.locations,
      rawInput: request.arguments,
    },
    options: OPTIONS.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
  };
}

/**
 * The comma command deciding `request` for the option the editor picked, or null when it picked
 * none (cancelled: the request stays pending).
 */
export function decisionCommand(request: ApprovalRequest, outcome: unknown): string | null {
  const picked = outcome as { outcome?: unknown; optionId?: unknown } | null;
  if (picked?.outcome !== "selected") return null;
  const option = OPTIONS.find((candidate) => candidate.optionId === picked.optionId);
  if (!option) return null;
  return option.command === null
    ? `,deny ${request.id} rejected in the editor`
    : `,approve ${request.id}${option.command}`;
}
