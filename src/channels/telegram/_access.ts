/**
 * Who may talk to the Telegram channel (spec/builtin.md §10.5): allowlists of chats and users, and
 * whether a message addresses the bot (`is_active`).
 *
 * @module
 */
import type { Message, MessageEntity, UserFromGetMe } from "grammy/types";
import { messageType } from "./_parse.ts";

/**
 * Splits a comma-separated allowlist (as in `BUB_TELEGRAM_ALLOW_USERS`) into trimmed, non-empty
 * entries; null or blank text gives null (no restriction).
 *
 * @example
 * ```ts
 * import { parseAllowList } from "./_access.ts";
 * console.assert(parseAllowList(" 42, ada ,")?.join("|") === "42|ada");
 * console.assert(parseAllowList("") === null);
 * ```
 */
export function parseAllowList(text: string | null | undefined): string[] | null {
  const items = (text ?? "").split(",").map((item) => item.trim()).filter(Boolean);
  return items.length ? items : null;
}

/** The allowlists of one channel. An empty set means no restriction. */
export class AccessPolicy {
  readonly users: ReadonlySet<string>;
  readonly chats: ReadonlySet<string>;

  constructor(
    users: readonly string[] | null | undefined,
    chats: readonly string[] | null | undefined,
  ) {
    this.users = new Set((users ?? []).map((item) => String(item).trim()).filter(Boolean));
    this.chats = new Set((chats ?? []).map((item) => String(item).trim()).filter(Boolean));
  }

  /** True when no chat allowlist is set or `chatId` is on it. */
  chatAllowed(chatId: string): boolean {
    return this.chats.size === 0 || this.chats.has(chatId);
  }

  /** True when no user allowlist is set or the sender's numeric id or username is on it. */
  userAllowed(user: { id: number; username?: string }): boolean {
    if (this.users.size === 0) return true;
    if (this.users.has(String(user.id))) return true;
    return Boolean(user.username) && this.users.has(user.username!);
  }
}

const GROUP_TYPES = new Set(["group", "supergroup"]);

function mentionsBot(message: Message, bot: UserFromGetMe): boolean {
  const raw = message.text ?? message.caption ?? "";
  const content = raw.trim().toLowerCase();
  const username = (bot.username ?? "").toLowerCase();
  const entities: MessageEntity[] = [
    ...(message.entities ?? []),
    ...(message.caption_entities ?? []),
  ];
  for (const entity of entities) {
    if (entity?.type === "mention" && username) {
      const text = raw.slice(entity.offset, entity.offset + entity.length).toLowerCase();
      if (text === `@${username}`) return true;
    } else if (entity?.type === "text_mention" && entity.user?.id === bot.id) {
      return true;
    }
  }
  return content.includes("bub") || (username !== "" && content.includes(`@${username}`));
}

function repliesToBot(message: Message, bot: UserFromGetMe): boolean {
  return message.reply_to_message?.from?.id === bot.id;
}

/**
 * Whether a message is addressed to the bot: unsupported types never; private chats always;
 * groups and supergroups when it mentions the bot (`bub`, `@<username>`, a mention entity) or
 * replies to it (media without caption: only replies); other chat types never.
 */
export function isActiveMessage(message: Message, bot: UserFromGetMe): boolean {
  const type = messageType(message);
  if (type === "unknown") return false;
  const chatType = message.chat?.type;
  if (chatType === "private") return true;
  if (!GROUP_TYPES.has(chatType ?? "")) return false;
  const reply = repliesToBot(message, bot);
  if (type !== "text" && !message.caption) return reply;
  return mentionsBot(message, bot) || reply;
}
