/**
 * Who may talk to a Chat SDK channel: allowlists of users and channels with Telegram's rules
 * (spec/builtin.md §10.5) — both empty refuses to start, `*` opts in to everyone loudly, comma
 * commands only from users literally listed.
 *
 * @module
 */
import { BubError } from "../../kernel/errors.ts";

/** The allowlist entry that opts in to everyone (`BUB_SLACK_ALLOW_USERS="*"`). */
export const ALLOW_EVERYONE = "*";

/** A message's sender as the Chat SDK reports it. */
export interface ChatUser {
  /** The platform's user id (Slack `U…`, GitHub numeric id). */
  readonly id: string;
  /** The handle (Slack user name, GitHub login). */
  readonly name: string;
}

function toSet(items: readonly string[] | null | undefined): ReadonlySet<string> {
  return new Set((items ?? []).map((item) => String(item).trim()).filter(Boolean));
}

/** The allowlists of one chat platform. */
export class ChatAccess {
  /** Allowed user ids or names. */
  readonly users: ReadonlySet<string>;
  /** Served channel ids (GitHub: `owner/repo`). */
  readonly channels: ReadonlySet<string>;
  readonly #platform: string;
  readonly #keys: (channelId: string) => string[];

  /**
   * @param platform the platform's name (`slack`), used in messages and env names
   * @param users user ids or names; `*` = everyone
   * @param channels channel ids; empty = every channel
   * @param keys the ids a channel may be listed by (Discord: its channel or its guild)
   */
  constructor(
    platform: string,
    users: readonly string[] | null | undefined,
    channels: readonly string[] | null | undefined,
    keys: (channelId: string) => string[] = (channelId) => [channelId],
  ) {
    this.#platform = platform;
    this.#keys = keys;
    this.users = toSet(users);
    this.channels = toSet(channels);
  }

  /** True when at least one allowlist is set (`*` counts as set). */
  get configured(): boolean {
    return this.users.size > 0 || this.channels.size > 0;
  }

  /** The warning to log at start when every user of the platform may talk; null otherwise. */
  openWarning(): string | null {
    const name = this.#platform;
    if (this.users.has(ALLOW_EVERYONE)) {
      return `${name}.start allow_users="*": every ${name} user may talk to the bot ` +
        "(comma commands stay disabled)";
    }
    if (this.users.size === 0 && this.channels.has(ALLOW_EVERYONE)) {
      return `${name}.start allow_channels="*" and no allow_users: every ${name} user in every ` +
        "channel may talk to the bot (comma commands stay disabled)";
    }
    return null;
  }

  /** True when no channel allowlist is set, it holds `*`, or one of `channelId`'s keys is on it. */
  channelAllowed(channelId: string): boolean {
    return this.channels.size === 0 || this.channels.has(ALLOW_EVERYONE) ||
      this.#keys(channelId).some((key) => this.channels.has(key));
  }

  /** True when no user allowlist is set, it holds `*`, or the sender is on it. */
  userAllowed(user: ChatUser): boolean {
    if (this.users.size === 0 || this.users.has(ALLOW_EVERYONE)) return true;
    return this.userListed(user);
  }

  /** True only when the sender's id or name is literally listed: the rule for comma commands. */
  userListed(user: ChatUser): boolean {
    return (user.id !== "" && this.users.has(user.id)) ||
      (user.name !== "" && this.users.has(user.name));
  }

  /** The `config` error of a channel started with neither allowlist set. */
  openError(): BubError {
    const env = `BUB_${this.#platform.toUpperCase()}`;
    return new BubError(
      "config",
      `Refusing to start the ${this.#platform} channel: with no allowlist anyone could talk to ` +
        `the bot and make it run commands. Set ${env}_ALLOW_USERS (comma-separated user ids or ` +
        `names) or ${env}_ALLOW_CHANNELS, or ${env}_ALLOW_USERS="*" to allow everyone`,
      { platform: this.#platform },
    );
  }
}
