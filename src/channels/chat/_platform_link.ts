/**
 * A chat channel's link to its platform while it runs: at start the adapter (and the platform's
 * way to fetch inbound media through it), the Chat SDK's `Chat`, initialized once the channel
 * wired its handlers, the webhook route on the shared server and the platform's outward
 * connection (held by the elected instance in a cluster); at stop, or when starting fails
 * halfway, the same taken down in reverse, after the webhook deliveries in flight.
 *
 * @module
 */
import type { Adapter, Chat } from "chat";
import { getLogger } from "../../_internal/log.ts";
import { connectPlatform } from "./_elected.ts";
import type { InboundMedia } from "./_media.ts";
import { createSdkChat } from "./_sdk_chat.ts";
import { sdkLogger } from "./_sdk_logger.ts";
import type { ChatCredentials, ChatPlatform } from "./chat_platform.ts";
import type { WebhookServer } from "./webhook_server.ts";

/** The channel options a link reads (when it opens, like the channel did). */
export interface PlatformLinkOptions {
  /** The platform's credentials. */
  readonly credentials: ChatCredentials;
  /** The shared webhook server. */
  readonly webhooks: WebhookServer;
  /** The cluster's PostgreSQL URL, if this gateway is a cluster instance. */
  readonly clusterUrl?: string | null;
}

/** What a link is made of: the channel's platform and options. */
export interface PlatformLinkSettings {
  /** The channel name (the platform's name). */
  readonly name: string;
  /** The platform. */
  readonly platform: ChatPlatform;
  /** The channel's options. */
  readonly options: PlatformLinkOptions;
  /** An error's text with the platform's secrets redacted. */
  redact(error: unknown): string;
}

/** The adapter, SDK and connections of a started chat channel. */
export class PlatformLink {
  /** The adapter, once the SDK initialized; null before start and after stop. */
  adapter: Adapter | null = null;
  /** The SDK's `Chat`, once initialized; null before start and after stop. */
  chat: Chat | null = null;
  /** The SDK module, once initialized. */
  sdk: typeof import("chat") | null = null;
  /** How inbound media is fetched through the adapter, once created (null: by URL). */
  media: InboundMedia | null = null;
  #settings: PlatformLinkSettings;
  #tasks = new Set<Promise<unknown>>();
  #route: AsyncDisposable | null = null;
  #connection: AsyncDisposable | null = null;

  /** @param settings the channel's name, platform and options, and its redaction */
  constructor(settings: PlatformLinkSettings) {
    this.#settings = settings;
  }

  /**
   * Creates the adapter and the SDK's `Chat`, lets `wire` register the channel's handlers,
   * initializes the SDK, then routes the platform's webhooks and opens its outward connection.
   * When a step after `Chat` fails, what started is taken down ({@link close}) and the error
   * rethrown.
   */
  async open(wire: (chat: Chat) => void): Promise<void> {
    const { name, platform, options } = this.#settings;
    const credentials = options.credentials;
    const sdkLog = sdkLogger(name, platform.secrets(credentials));
    const adapter = await platform.createAdapter(credentials, sdkLog);
    this.media = platform.inboundMedia?.(credentials, adapter) ?? null;
    const userName = credentials.userName || "bub";
    const { sdk, chat } = await createSdkChat(name, adapter, userName, sdkLog, {
      clusterUrl: options.clusterUrl ?? null,
      streamPlaceholder: platform.streamPlaceholder,
    });
    wire(chat);
    try {
      await chat.initialize();
      this.chat = chat;
      this.sdk = sdk;
      this.adapter = adapter;
      if (platform.webhooks(credentials)) {
        const webhook = chat.webhooks[name]!;
        this.#route = await options.webhooks.register(
          name,
          (request) => webhook(request, { waitUntil: (task) => this.#track(task) }),
        );
      }
      const outward = platform.connection?.(credentials) ?? null;
      if (outward !== null) {
        this.#connection = await connectPlatform(() => outward.open(adapter), {
          url: options.clusterUrl ?? null,
          job: outward.job,
          channel: name,
        });
      }
    } catch (error) {
      // Shut down what started: the SDK's state (a cluster's database pool), the route.
      this.chat = chat;
      await this.close();
      throw error;
    }
  }

  /**
   * Closes the outward connection and the webhook route, waits for the webhook deliveries in
   * flight and shuts the SDK down (a failure is logged at debug level).
   */
  async close(): Promise<void> {
    const { name, redact } = this.#settings;
    const connection = this.#connection;
    this.#connection = null;
    await Promise.resolve(connection?.[Symbol.asyncDispose]()).catch(() => {});
    const route = this.#route;
    this.#route = null;
    await route?.[Symbol.asyncDispose]();
    await Promise.allSettled([...this.#tasks]);
    const chat = this.chat;
    this.chat = null;
    this.adapter = null;
    await chat?.shutdown().catch((error: unknown) =>
      getLogger(["bub", "channels", name]).debug("{channel}.stop error={error}", {
        channel: name,
        error: redact(error),
      })
    );
  }

  #track(task: Promise<unknown>): void {
    const tracked = task.catch(() => {}).finally(() => this.#tasks.delete(tracked));
    this.#tasks.add(tracked);
  }
}
