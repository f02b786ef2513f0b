/**
 * Who may talk to the Telegram channel (spec/builtin.md §10.5): allowlists of chats and users, and
 * whether a message addresses the bot (`is_active`).
 *
 * @module
 */
import type { Message, MessageEntity, UserFromGetMe } from "grammy/types";
import { BubError } from "../../kernel/errors.ts";
import { messageType } from "./_parse.ts";

export { parseAllowList } from "../../_internal/allow_list.ts";

/** The allowlist entry that opts in to everyone (`BUB_TELEGRAM_ALLOW_USERS="*"`). */
export const ALLOW_EVERYONE = "*";

/**
 * The allowlists of one channel. An empty set means no restriction on that axis, but a channel
 * with both sets empty is not {@link AccessPolicy.configured} and must not serve; `*` in a set
 * allows everyone on that axis.
 */
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

  /** True when at least one allowlist is set (`*` counts as set). */
  get configured(): boolean {
    return this.users.size > 0 || this.chats.size > 0;
  }

  /** True when the user allowlist holds `*` (everyone may talk). */
  get everyone(): boolean {
    return this.users.has(ALLOW_EVERYONE);
  }

  /**
   * The warning to log at start when every Telegram user may talk to the bot: `allow_users`
   * holds `*`, or `allow_chats` holds `*` with no user allowlist; null otherwise.
   */
  openWarning(): string | null {
    if (this.everyone) {
      return 'telegram.start allow_users="*": every Telegram user may talk to the bot ' +
        "(comma commands stay disabled)";
    }
    if (this.users.size === 0 && this.chats.has(ALLOW_EVERYONE)) {
      return 'telegram.start allow_chats="*" and no allow_users: every Telegram user in every ' +
        "chat may talk to the bot (comma commands stay disabled)";
    }
    return null;
  }

  /** True when no chat allowlist is set, it holds `*`, or `chatId` is on it. */
  chatAllowed(chatId: string): boolean {
    return this.chats.size === 0 || this.chats.has(ALLOW_EVERYONE) || this.chats.has(chatId);
  }

  /** True when no user allowlist is set, it holds `*`, or the sender's id or username is on it. */
  userAllowed(user: { id: number; username?: string }): boolean {
    if (this.users.size === 0 || this.everyone) return true;
    return this.userListed(user);
  }

  /**
   * True only when the sender's numeric id or username is literally on the user allowlist (`*`
   * and an empty list do not count): the rule for comma commands, which run shell commands.
   */
  userListed(user: { id: number; username?: string }): boolean {
    if (this.users.has(String(user.id))) return true;
    return Boolean(user.username) && this.users.has(user.username!);
  }
}

/** The `config` error of a Telegram channel started with neither allowlist set. */
export function openGatewayError(): BubError {
  return new BubError(
    "config",
    "Refusing to start the Telegram channel: with no allowlist anyone could talk to the bot " +
      "and make it run commands. Set BUB_TELEGRAM_ALLOW_USERS (comma-separated user ids or " +
      'usernames) or BUB_TELEGRAM_ALLOW_CHATS (chat ids), or BUB_TELEGRAM_ALLOW_USERS="*" ' +
      "to allow everyone",
  );
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
