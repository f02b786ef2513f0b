/**
 * Turning a Telegram message into Bub's inbound `ChannelMessage`, recognising bot commands and
 * malformed messages, and picking the text of an outbound message (spec/builtin.md §10.5).
 *
 * @module
 */
import type { Message, UserFromGetMe } from "grammy/types";
import { ChannelMessage } from "../../kernel/channel_message.ts";
import { sessionKey } from "../../kernel/envelope.ts";
import { isActiveMessage } from "./_access.ts";
import { type FileDownloader, parseMessage, parseReply } from "./_parse.ts";

/** What {@link buildInbound} needs from the channel. */
export interface InboundDeps {
  /** The channel name (`telegram`). */
  channel: string;
  /** Downloads media files lazily. */
  download: FileDownloader;
  /** The typing lifespan for the message's chat. */
  lifespan: () => AsyncDisposable;
}

/** A `/command[@bot] args` at the start of a text message. */
export interface BotCommand {
  name: string;
  target: string | null;
  args: string;
}

/** The bot command a text message starts with (a `bot_command` entity at offset 0), or null. */
export function leadingCommand(message: Message): BotCommand | null {
  const first = message.entities?.[0];
  if (!message.text || first?.type !== "bot_command" || first.offset !== 0) return null;
  const [name = "", target = null] = message.text.slice(1, first.length).split("@");
  return { name: name.toLowerCase(), target, args: message.text.slice(first.length).trim() };
}

/** Why a message cannot be handled (missing chat, chat id or message id), or null. */
export function malformedReason(message: unknown): string | null {
  if (typeof message !== "object" || message === null) return "message is not an object";
  const { chat, message_id } = message as { chat?: { id?: unknown }; message_id?: unknown };
  if (typeof chat !== "object" || chat === null) return "missing chat";
  if (typeof chat.id !== "number" && typeof chat.id !== "string") return "missing chat.id";
  if (typeof message_id !== "number") return "missing message_id";
  return null;
}

/**
 * The inbound message for `message`: a leading `/bub ` is removed; a comma command becomes a
 * trimmed command message answered in the chat; anything else gets JSON content
 * `{message, ...metadata, reply_to_message?}`, media (the reply's appended), `isActive`, a typing
 * lifespan and `outputChannel: "null"`.
 */
export function buildInbound(
  message: Message,
  me: UserFromGetMe,
  deps: InboundDeps,
): ChannelMessage {
  const chatId = String(message.chat.id);
  const sessionId = sessionKey(deps.channel, chatId);
  const parsed = parseMessage(message, deps.download);
  // Who sent it: the owner of a turn that asks for approval, the decider of a command.
  const sender = message.from ? { sender_id: String(message.from.id) } : {};
  let content = parsed.content;
  if (content.startsWith("/bub ")) content = content.slice(5);
  if (content.trim().startsWith(",")) {
    const command = content.trim();
    return new ChannelMessage({
      sessionId,
      channel: deps.channel,
      chatId,
      content: command,
      kind: "command",
      context: { ...sender },
    });
  }
  const metadata = { ...parsed.metadata };
  const media = [...parsed.media];
  const reply = parseReply(message, deps.download);
  if (reply) {
    metadata.reply_to_message = reply.metadata;
    media.push(...reply.media);
  }
  return new ChannelMessage({
    sessionId,
    channel: deps.channel,
    chatId,
    content: JSON.stringify({ message: content, ...metadata }),
    context: { ...sender },
    media,
    isActive: isActiveMessage(message, me),
    lifespan: deps.lifespan(),
    outputChannel: "null",
  });
}
