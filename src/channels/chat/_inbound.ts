/**
 * The inbound stage of a Chat SDK channel: one message the SDK routed to Bub (a direct message,
 * a new mention, a message of a subscribed thread) → channel and user admission → a comma command
 * (allowed users only) or a JSON message handed to the channel manager, with session
 * `<platform>:<channel>:<thread>` (the SDK's thread id).
 *
 * @module
 */
import type { Message, Thread } from "chat";
import { getLogger } from "../../_internal/log.ts";
import type { MessageHandler } from "../../kernel/channel.ts";
import { ChannelMessage } from "../../kernel/channel_message.ts";
import type { ChatAccess, ChatUser } from "./_access.ts";
import { type InboundMedia, type MessageMedia, messageMedia } from "./_media.ts";
import { linkedMedia } from "./_linked_media.ts";

/** The reply to a user who may not talk to the bot. */
export const ACCESS_DENIED_MESSAGE = "Access denied.";

/** The reply to a comma command from a user not literally on `allow_users`. */
export function commandDeniedMessage(platform: string): string {
  return "Comma commands are only accepted from users listed in " +
    `BUB_${platform.toUpperCase()}_ALLOW_USERS.`;
}

/** What {@link routeInbound} needs of its channel. */
export interface InboundContext {
  /** The channel and platform name (`slack`). */
  readonly channel: string;
  /** The allowlists. */
  readonly access: ChatAccess;
  /** Receives the built messages (the channel manager's handler). */
  readonly handler: MessageHandler;
  /** Whether refused users get a reply. */
  readonly answersStrangers: boolean;
  /** Whether that reply is ephemeral (only the refused user sees it). */
  readonly ephemeralRefusals: boolean;
  /** How attachments are found and fetched (none: attachments are not passed on). */
  readonly media?: InboundMedia;
  /**
   * Keeps the hand-offs of a thread in arrival order while linked attachments download (the
   * channel's one instance).
   */
  readonly order?: HandOffOrder;
}

/** Runs the tasks of one key one after another, in the order they were queued. */
export class HandOffOrder {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `task` once every task queued before under `key` has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.#tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(() => {}, () => {});
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}

/** How a message reached Bub. */
export type InboundRoute = "direct" | "mention" | "subscribed";

/** The platform-local part of an SDK id (`slack:C1` → `C1`). */
export function localId(platform: string, id: string): string {
  return id.startsWith(`${platform}:`) ? id.slice(platform.length + 1) : id;
}

/**
 * The text without a leading mention of the bot (`<@U1>`, `@bub`, `@bub:`, `@bub,`); a comma
 * right before the text (`@bub ,help`) stays: it starts a comma command.
 */
export function withoutLeadingMention(text: string): string {
  return text.replace(/^\s*(?:<@[^>\s]+>|@[\w.\-\[\]]+)(?:[:,](?=\s))?\s*/, "").trim();
}

/**
 * Posts a refusal to `user` in `thread`: only they see it where the platform has ephemeral
 * messages (`ephemeral`; Slack), else (or when that fails to apply) a plain reply.
 */
export function postRefusal(
  thread: Thread<unknown>,
  channel: string,
  text: string,
  user: string,
  ephemeral: boolean,
): Promise<void> {
  const post: Promise<unknown> = ephemeral && user !== ""
    ? thread.postEphemeral(user, text, { fallbackToDM: false })
      .then((sent): Promise<unknown> => sent ? Promise.resolve(sent) : thread.post(text))
    : thread.post(text);
  return post.then(() => {}, (error: unknown) => {
    getLogger(["bub", "channels", channel]).warning(
      "{channel}.reply failed: {error}",
      { channel, error: (error as Error).message },
    );
  });
}

function refuse(
  thread: Thread,
  context: InboundContext,
  text: string,
  user: ChatUser,
): Promise<void> {
  if (!context.answersStrangers) return Promise.resolve();
  return postRefusal(thread, context.channel, text, user.id, context.ephemeralRefusals);
}

/** A typing lifespan of `thread`: entering starts the platform's typing indicator, if any. */
export function typingLifespan(
  thread: Thread,
  channel: string,
): AsyncDisposable & { enter(): void } {
  return {
    enter() {
      thread.startTyping().catch((error: unknown) =>
        getLogger(["bub", "channels", channel]).debug("{channel}.typing failed: {error}", {
          channel,
          error: (error as Error).message,
        })
      );
    },
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

/**
 * Admits one message and hands it to the handler; resolves once the handler took it over (or it
 * was refused).
 */
export async function routeInbound(
  thread: Thread,
  message: Message,
  route: InboundRoute,
  context: InboundContext,
): Promise<void> {
  const { channel, access } = context;
  const logger = getLogger(["bub", "channels", channel]);
  if (message.author.isMe) return;
  const channelId = localId(channel, thread.channelId);
  if (!access.channelAllowed(channelId)) {
    logger.debug("{channel}.ignored channel_id={channelId}: channel not allowed", {
      channel,
      channelId,
    });
    return;
  }
  const user: ChatUser = { id: message.author.userId ?? "", name: message.author.userName ?? "" };
  if (!access.userAllowed(user)) {
    logger.warning("{channel}.denied user_id={userId} user_name={userName} thread={thread}", {
      channel,
      userId: user.id,
      userName: user.name,
      thread: thread.id,
    });
    return refuse(thread, context, ACCESS_DENIED_MESSAGE, user);
  }
  const text = withoutLeadingMention(message.text ?? "");
  // The sender decides the approvals its turns ask for (the turn origin's sender).
  const base = {
    sessionId: thread.id,
    channel,
    chatId: thread.id,
    context: { sender_id: user.id },
  };
  if (text.startsWith(",")) {
    if (!access.userListed(user)) {
      logger.warning("{channel}.command_denied user_id={userId} user_name={userName}", {
        channel,
        userId: user.id,
        userName: user.name,
      });
      return refuse(thread, context, commandDeniedMessage(channel), user);
    }
    // The message id lets a cluster's inbox drop a redelivery to another instance.
    await context.handler(
      new ChannelMessage({
        ...base,
        content: text,
        kind: "command",
        context: { ...base.context, message_id: message.id },
      }),
    );
    return;
  }
  const content = {
    message: text,
    message_id: message.id,
    sender_id: user.id,
    username: user.name,
    full_name: message.author.fullName ?? user.name,
    channel_id: channelId,
    date: message.metadata?.dateSent?.toISOString?.() ?? null,
  };
  const hand = ({ media, attachments }: MessageMedia) =>
    context.handler(
      new ChannelMessage({
        ...base,
        content: JSON.stringify(attachments.length ? { ...content, attachments } : content),
        media,
        isActive: route !== "subscribed" || Boolean(message.isMention),
        lifespan: typingLifespan(thread, channel),
      }),
    );
  const media = context.media;
  // Handed over before any await, so concurrent deliveries keep their order; linked attachments
  // download first, in parallel, and the hand-offs queue per thread.
  let handed: Promise<void>;
  if (media?.links) {
    const loading = linkedMedia(message, media.links);
    const order = context.order ?? new HandOffOrder();
    handed = order.run(thread.id, async () => await hand(await loading));
  } else {
    handed = hand(media ? messageMedia(message, media) : { media: [], attachments: [] });
  }
  // A mention opens the thread to Bub: its follow-ups come as subscribed messages.
  if (route === "mention") await thread.subscribe();
  await handed;
}
