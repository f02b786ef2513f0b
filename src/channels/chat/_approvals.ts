/**
 * Approvals as native buttons: a turn's answer that asks `,approve <id>` gets a card with
 * Approve / Always / Deny buttons on platforms that have them (Slack); a click runs the same
 * comma command as typing it, only for users literally on `allow_users` (the comma-command rule),
 * as that user (the approvals then check they may decide).
 *
 * @module
 */
import type { ActionEvent, CardElement } from "chat";
import { getLogger } from "../../_internal/log.ts";
import type { MessageHandler } from "../../kernel/channel.ts";
import { ChannelMessage } from "../../kernel/channel_message.ts";
import type { ChatAccess } from "./_access.ts";
import { commandDeniedMessage, localId, postRefusal } from "./_inbound.ts";

/** The action ids of the approval buttons. */
export const APPROVAL_ACTIONS: readonly string[] = [
  "bub_approve",
  "bub_approve_always",
  "bub_deny",
];

/** The only commands a button may carry. */
const BUTTON_COMMAND = /^,(?:approve [a-z2-7]{10}(?: always)?|deny [a-z2-7]{10})$/;

/** The approval ids a text asks about (`,approve <id>`), in order, each once. */
export function approvalIds(text: string): string[] {
  const ids: string[] = [];
  for (const [, id] of text.matchAll(/,approve ([a-z2-7]{10})\b/g)) {
    if (!ids.includes(id!)) ids.push(id!);
  }
  return ids;
}

/** The card of approval `id` (the SDK's card builders, imported by the caller). */
export function approvalCard(sdk: typeof import("chat"), id: string): CardElement {
  const { Actions, Button, Card } = sdk;
  return Card({
    title: `Approval ${id}: a tool call waits`,
    children: [
      Actions([
        Button({ id: "bub_approve", label: "Approve", style: "primary", value: `,approve ${id}` }),
        Button({ id: "bub_approve_always", label: "Always", value: `,approve ${id} always` }),
        Button({ id: "bub_deny", label: "Deny", style: "danger", value: `,deny ${id}` }),
      ]),
    ],
  }) as CardElement;
}

/** What {@link handleApprovalAction} needs of its channel. */
export interface ApprovalActionContext {
  /** The channel and platform name. */
  readonly channel: string;
  /** The allowlists. */
  readonly access: ChatAccess;
  /** Receives the command (the channel manager's handler). */
  readonly handler: MessageHandler;
  /** Whether the refusal is ephemeral (only the clicking user sees it). */
  readonly ephemeralRefusals: boolean;
}

/** Runs a clicked approval button's command for a listed user; refuses anyone else. */
export async function handleApprovalAction(
  event: ActionEvent,
  context: ApprovalActionContext,
): Promise<void> {
  const { channel, access } = context;
  const logger = getLogger(["bub", "channels", channel]);
  const thread = event.thread;
  const command = event.value ?? "";
  if (!thread || !BUTTON_COMMAND.test(command)) {
    logger.warning("{channel}.action ignored action_id={action}: no thread or a bad value", {
      channel,
      action: event.actionId,
    });
    return;
  }
  const user = { id: event.user.userId ?? "", name: event.user.userName ?? "" };
  if (!access.channelAllowed(localId(channel, thread.channelId)) || !access.userListed(user)) {
    logger.warning("{channel}.action_denied user_id={userId} command={command}", {
      channel,
      userId: user.id,
      command,
    });
    const text = commandDeniedMessage(channel);
    await postRefusal(thread, channel, text, user.id, context.ephemeralRefusals);
    return;
  }
  await context.handler(
    new ChannelMessage({
      sessionId: thread.id,
      channel,
      chatId: thread.id,
      content: command,
      kind: "command",
      context: { sender_id: user.id },
    }),
  );
}
