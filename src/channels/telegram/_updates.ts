/**
 * The inbound stage of the Telegram channel: one polled update → malformed or foreign commands
 * dropped → `/start` answered → chat, user and command access checked → the message built and
 * handed to the channel's handler.
 *
 * @module
 */
import type { Api } from "grammy";
import type { Message, Update, UserFromGetMe } from "grammy/types";
import { getLogger } from "../../_internal/log.ts";
import type { MessageHandler } from "../../kernel/channel.ts";
import type { AccessPolicy } from "./_access.ts";
import { handleApprovalPress } from "./_approvals.ts";
import { buildInbound, leadingCommand, malformedReason } from "./_inbound.ts";
import type { TypingIndicators } from "./_typing.ts";

const logger = getLogger(["bub", "channels", "telegram"]);

/**
 * Reply to `/start` from a chat outside `allowChats`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NO_ACCESS_MESSAGE } from "@bub/core/channels";
 * assert.equal(typeof NO_ACCESS_MESSAGE, "string"); // the reply to a user not on the allow list
 * ```
 */
export const NO_ACCESS_MESSAGE =
  "You are not allowed to chat with me. Please deploy your own instance of Bub.";
/** Reply to a comma command from a user who is not literally on `allowUsers`. */
export const COMMAND_DENIED_MESSAGE =
  "Comma commands are only accepted from users listed in BUB_TELEGRAM_ALLOW_USERS.";

/** What handling an update needs of its channel. */
export interface UpdateContext {
  /** The channel's name (`telegram`). */
  readonly channel: string;
  /** The allowlists. */
  readonly access: AccessPolicy;
  /** Receives the built inbound messages. */
  readonly handler: MessageHandler;
  /** The chats' typing indicators (each message gets a lifespan). */
  readonly typing: TypingIndicators;
  /** Sends `text` to the message's chat, logging a failure. */
  reply(message: Message, text: string): void;
  /** Downloads a media item's bytes (null when too large or failing). */
  download(fileId: string, fileSize: number | null): Promise<Uint8Array | null>;
  /** An error's text with the bot token redacted. */
  redact(error: unknown): string;
  /** The Bot API (answers callback queries). */
  api(): Promise<Api>;
}

/**
 * Handles one update; resolves once the handler took the message over, so polling (which
 * awaits it) acknowledges an update only after that: a cluster instance killed mid-batch leaves
 * the unqueued updates to the next poller.
 */
export function handleUpdate(
  update: Update,
  me: UserFromGetMe,
  context: UpdateContext,
): Promise<void> | void {
  try {
    if ("callback_query" in update && update.callback_query) {
      return handleApprovalPress(update.callback_query, context);
    }
    if (!("message" in update)) return;
    const reason = malformedReason(update.message);
    if (reason) {
      logger.warning("telegram.update malformed update_id={updateId} reason={reason}", {
        updateId: update.update_id,
        reason,
      });
      return;
    }
    const message = update.message!;
    const command = leadingCommand(message);
    if (command) {
      if (command.target && command.target.toLowerCase() !== (me.username ?? "").toLowerCase()) {
        return;
      }
      if (command.name === "start") return _onStart(message, context);
      if (command.name !== "bub" || command.args === "") return;
    }
    return _onMessage(message, me, context);
  } catch (error) {
    logger.error("telegram.update failed update_id={updateId}: {error}", {
      updateId: update?.update_id,
      error: context.redact(error),
    });
  }
}

function _onStart(message: Message, context: UpdateContext): void {
  const allowed = context.access.chatAllowed(String(message.chat.id));
  context.reply(message, allowed ? "Bub is online. Send text to start." : NO_ACCESS_MESSAGE);
}

function _onMessage(
  message: Message,
  me: UserFromGetMe,
  context: UpdateContext,
): Promise<void> | void {
  const chatId = String(message.chat.id);
  if (!context.access.chatAllowed(chatId)) {
    logger.debug("telegram.ignored chat_id={chatId}: chat not allowed", { chatId });
    return;
  }
  const user = message.from;
  if (!user || typeof user.id !== "number") {
    logger.warning("telegram.ignored chat_id={chatId}: message without sender", { chatId });
    return;
  }
  if (!context.access.userAllowed(user)) {
    logger.warning("telegram.denied user_id={userId} username={username} chat_id={chatId}", {
      userId: user.id,
      username: user.username ?? "-",
      chatId,
    });
    context.reply(message, "Access denied.");
    return;
  }
  const inbound = buildInbound(message, me, {
    channel: context.channel,
    download: (fileId, size) => context.download(fileId, size),
    lifespan: () => context.typing.lifespan(chatId),
  });
  if (inbound.kind === "command" && !context.access.userListed(user)) {
    logger.warning(
      "telegram.command_denied user_id={userId} username={username} chat_id={chatId}",
      { userId: user.id, username: user.username ?? "-", chatId },
    );
    context.reply(message, COMMAND_DENIED_MESSAGE);
    return;
  }
  return context.handler(inbound).catch((error: unknown) => {
    logger.error("telegram.handler failed chat_id={chatId}: {error}", {
      chatId,
      error: context.redact(error),
    });
  });
}
