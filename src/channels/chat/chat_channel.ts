/**
 * The `chat` channel family: one Bub channel per enabled platform (`slack`, `github`, `discord`,
 * `teams`), each hosting Vercel's Chat SDK with that platform's adapter. The SDK and the adapter
 * are imported when the channel starts; inbound webhooks arrive through the shared
 * {@link WebhookServer}. What runs while the channel is started (adapter, SDK, webhook route,
 * outward connection) is `_platform_link.ts`; inbound messages are routed in `_inbound.ts`,
 * answers posted in `_post.ts` and `_stream.ts`.
 *
 * @module
 */
import type { Chat, Message, Thread } from "chat";
import { getLogger } from "../../_internal/log.ts";
import { redactedErrorText } from "../../_internal/redact.ts";
import type { MessageHandler } from "../../kernel/channel.ts";
import type { ChannelMessage } from "../../kernel/channel_message.ts";
import type { Envelope } from "../../kernel/envelope.ts";
import { BubError } from "../../kernel/errors.ts";
import { inboundOf } from "../../kernel/inbound.ts";
import type { StreamEvent } from "../../kernel/stream_events.ts";
import { Channel } from "../channel.ts";
import { ChatAccess } from "./_access.ts";
import { APPROVAL_ACTIONS, handleApprovalAction } from "./_approvals.ts";
import { HandOffOrder, type InboundRoute, routeInbound, typingLifespan } from "./_inbound.ts";
import { type InboundMedia, mediaLocationOf, urlMedia } from "./_media.ts";
import { mediaSource } from "./_media_fetch.ts";
import { PlatformLink } from "./_platform_link.ts";
import { postOutbound } from "./_post.ts";
import { postStreamed, StreamedAnswers } from "./_stream.ts";
import { CHAT_PLATFORMS } from "./platforms.ts";
import type { ChatCredentials, ChatPlatform } from "./chat_platform.ts";
import type { WebhookServer } from "./webhook_server.ts";

/**
 * Options of {@link ChatChannel}.
 *
 * @example
 * ```ts
 * import { type ChatChannelOptions, WebhookServer } from "@bub/core/channels";
 * const options: ChatChannelOptions = {
 *   platform: "github",
 *   handler: async () => {},
 *   credentials: { token: "ghp_x", webhookSecret: "s", userName: "bub" },
 *   allowUsers: ["ada"],
 *   allowChannels: ["acme/app"],
 *   webhooks: new WebhookServer({ port: 0 }),
 * };
 * ```
 */
export interface ChatChannelOptions {
  /** The platform, also the channel name: `slack`, `github`, `discord` or `teams`. */
  platform: string;
  /** Receives inbound messages (the channel manager's handler). */
  handler: MessageHandler;
  /** The platform's credentials and API base. */
  credentials: ChatCredentials;
  /** User ids or names allowed to talk; `["*"]` = everyone; comma commands only from listed ones. */
  allowUsers?: readonly string[] | null;
  /** Channel ids (GitHub: `owner/repo`) served; empty = every channel. */
  allowChannels?: readonly string[] | null;
  /** The webhook server shared by the webhook platforms. */
  webhooks: WebhookServer;
  /**
   * The PostgreSQL URL of the cluster this gateway is an instance of (its tape store), if any:
   * a platform's outward connection (Discord's gateway) is then held by one elected instance.
   */
  clusterUrl?: string | null;
}

/**
 * A Bub channel serving one chat platform through the Chat SDK: sessions per thread
 * (`slack:<channel>:<thread>`), Telegram's admission rules, comma commands for listed users, the
 * answer posted back to the thread (streamed as edits with `stream_output` where the platform
 * allows it), typing where the platform has it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChatChannel, WebhookServer } from "@bub/core/channels";
 * const channel = new ChatChannel({
 *   platform: "slack",
 *   handler: async () => {},
 *   credentials: { botToken: "xoxb-1", signingSecret: "s" },
 *   allowUsers: ["U1"],
 *   webhooks: new WebhookServer({ port: 0 }),
 * });
 * assert.ok(channel.enabled && channel.name === "slack"); // nothing imported until start
 * ```
 */
export class ChatChannel extends Channel {
  /** The platform's name (`slack`, `github`, `discord`, `teams`). */
  readonly name: string;
  readonly #options: ChatChannelOptions;
  readonly #platform: ChatPlatform;
  readonly #access: ChatAccess;
  readonly #streamed = new StreamedAnswers();
  readonly #order = new HandOffOrder();
  readonly #link: PlatformLink;
  #starting: Promise<void> | null = null;

  /**
   * Creates the channel (nothing is imported until it starts).
   *
   * @param options the platform, handler, credentials, allowlists and webhook server
   * @throws {BubError} (`config`) for an unknown platform
   * @throws {TypeError} when the handler is not a function
   */
  constructor(options: ChatChannelOptions) {
    super();
    const platform = CHAT_PLATFORMS[options.platform];
    if (!platform) {
      throw new BubError(
        "config",
        `Unknown chat platform ${JSON.stringify(options.platform)} (known: ${
          Object.keys(CHAT_PLATFORMS).join(", ")
        })`,
      );
    }
    if (typeof options.handler !== "function") {
      throw new TypeError(`Chat channel handler must be a function, got ${typeof options.handler}`);
    }
    this.name = platform.name;
    this.#platform = platform;
    this.#options = options;
    this.#access = new ChatAccess(
      platform.name,
      options.allowUsers,
      options.allowChannels,
      platform.channelKeys,
    );
    this.#link = new PlatformLink({
      name: this.name,
      platform,
      options,
      redact: (error) => this.#redact(error),
    });
  }

  /** True: bursts of messages are merged. */
  override get needsDebounce(): boolean {
    return true;
  }

  /** True when the platform's credentials are set. */
  override get enabled(): boolean {
    return this.#platform.configured(this.#options.credentials);
  }

  /**
   * Imports the SDK and the adapter, initializes them and routes the platform's webhooks here.
   *
   * @throws {BubError} kind `config` when neither allowlist is set, a credential is missing or
   *   the webhook port is taken
   */
  start(_stop: AbortController): Promise<void> {
    return this.#starting ??= this.#start().catch((error) => {
      this.#starting = null;
      throw error;
    });
  }

  async #start(): Promise<void> {
    if (!this.#access.configured) throw this.#access.openError();
    const open = this.#access.openWarning();
    const logger = getLogger(["bub", "channels", this.name]);
    if (open !== null) logger.warning(open);
    await this.#link.open((chat) => this.#wire(chat));
    logger.info(
      "{channel}.start allow_users_count={users} allow_channels_count={channels}",
      { channel: this.name, users: this.#access.users.size, channels: this.#access.channels.size },
    );
  }

  /** Hands the SDK's messages (and, with buttons, approval presses) to the channel. */
  #wire(chat: Chat): void {
    const on = (route: InboundRoute) => (thread: Thread, message: Message) =>
      this.#inbound(thread, message, route);
    chat.onDirectMessage(on("direct"));
    chat.onNewMention(on("mention"));
    chat.onSubscribedMessage(on("subscribed"));
    if (this.#platform.buttons) {
      chat.onAction([...APPROVAL_ACTIONS], (event) =>
        handleApprovalAction(event, {
          channel: this.name,
          access: this.#access,
          handler: this.#options.handler,
          ephemeralRefusals: this.#platform.ephemeralRefusals,
        }).catch((error: unknown) =>
          getLogger(["bub", "channels", this.name]).error("{channel}.action failed: {error}", {
            channel: this.name,
            error: this.#redact(error),
          })
        ));
    }
  }

  /** Stops taking webhooks, waits for the messages being handled and shuts the SDK down. */
  async stop(): Promise<void> {
    const starting = this.#starting;
    this.#starting = null;
    await starting?.catch(() => {});
    await this.#link.close();
  }

  /**
   * Posts an outbound message's text (its JSON `message` field, else the content) to its thread
   * as Markdown, with its media: as files where the adapter posts them, else as the Markdown the
   * platform makes of them (GitHub: links and a note; Linear: uploads embedded); blank text, or
   * the text just streamed there, posts nothing. On a platform with buttons each
   * `,approve <id>` the text asks for is followed by an Approve / Always / Deny card.
   *
   * @throws {BubError} kind `config` when the channel has not started
   */
  override send(message: ChannelMessage): Promise<void> {
    return postOutbound(message, {
      platform: this.#platform,
      adapter: this.#link.adapter,
      sdk: this.#link.sdk,
      streamed: this.#streamed,
      thread: (chatId) => this.#thread(chatId),
    });
  }

  /**
   * Posts the turn's text to the thread as it streams (Slack: native streaming in DMs, else a
   * message edited as text arrives; GitHub: one comment at the end) and re-yields every event.
   */
  override streamEvents(
    message: Envelope,
    stream: AsyncIterable<StreamEvent>,
  ): AsyncIterable<StreamEvent> {
    const chatId = String(inboundOf(message).chatId ?? "");
    if (this.#link.chat === null || chatId === "") return stream;
    return postStreamed(this.#thread(chatId), stream, {
      posted: (text) => this.#streamed.add(chatId, text),
      failed: (error) =>
        getLogger(["bub", "channels", this.name]).error("{channel}.stream failed: {error}", {
          channel: this.name,
          error: this.#redact(error),
        }),
    });
  }

  /**
   * The typing indicator of a conversation, for a message this instance runs but another one
   * received (cluster mode); null before the channel started.
   */
  typingLifespan(chatId: string): AsyncDisposable | null {
    const chat = this.#link.chat;
    return chat === null ? null : typingLifespan(chat.thread(chatId), this.name);
  }

  #thread(chatId: string): Thread {
    const chat = this.#link.chat;
    if (!chat) {
      throw new BubError("config", `Cannot post to ${this.name}: the channel has not started`);
    }
    return chat.thread(chatId);
  }

  #inbound(thread: Thread, message: Message, route: InboundRoute): Promise<void> {
    return routeInbound(thread, message, route, {
      channel: this.name,
      access: this.#access,
      handler: this.#options.handler,
      answersStrangers: this.#platform.answersStrangers,
      ephemeralRefusals: this.#platform.ephemeralRefusals,
      media: this.#inboundMedia(),
      order: this.#order,
    }).catch((error: unknown) => {
      getLogger(["bub", "channels", this.name]).error(
        "{channel}.inbound failed thread={thread}: {error}",
        { channel: this.name, thread: thread.id, error: this.#redact(error) },
      );
    });
  }

  /**
   * Where the bytes of a media item of an inbound message are (its URL and what its fetch needs;
   * a cluster stores it with the message, so another instance can fetch the bytes); null for
   * other items.
   */
  mediaSource(item: unknown): Record<string, unknown> | null {
    const location = mediaLocationOf(item);
    return location ? { ...location } : null;
  }

  /** Fetches the bytes of a {@link mediaSource} (from the platform's hosts only). */
  mediaFetcher(source: Record<string, unknown>): (() => Promise<Uint8Array | null>) | null {
    if (typeof source.url !== "string" || source.url === "") return null;
    return async () => {
      const result = await this.#inboundMedia().fetch(source);
      return "data" in result ? result.data : null;
    };
  }

  #inboundMedia(): InboundMedia {
    // Discord's CDN URLs are signed: no token; platforms with tokens bring their own.
    return this.#link.media ??
      urlMedia(mediaSource(this.name, this.#options.credentials.apiBase, null));
  }

  #redact(error: unknown): string {
    return redactedErrorText(error, this.#platform.secrets(this.#options.credentials));
  }
}
