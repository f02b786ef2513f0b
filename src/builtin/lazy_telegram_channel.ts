/**
 * The builtin Telegram channel as a {@link LazyChannel}: grammY and the channel are imported when
 * it starts or first sends, while the members a cluster gateway uses before or around that — the
 * elected poller's `dropPendingUpdates` and `polling`, media references through the inbox, the
 * typing indicator of a message run on another instance — reach the implementation.
 *
 * @module
 */
import type {
  TelegramChannel,
  TelegramChannelOptions,
} from "../channels/telegram/telegram_channel.ts";
import { LazyChannel } from "./lazy_channel.ts";

/** The Telegram channel, imported on first use. */
export class LazyTelegramChannel extends LazyChannel {
  readonly #settings: { dropPendingUpdates: boolean };

  /**
   * Creates the object (nothing is imported yet).
   *
   * @param options the options of the {@link TelegramChannel} to create
   */
  constructor(options: TelegramChannelOptions) {
    const settings = { dropPendingUpdates: true };
    super({
      name: "telegram",
      enabled: () => options.token.trim() !== "",
      needsDebounce: true,
      load: async () => {
        const channel = new (await import("../channels/telegram/telegram_channel.ts"))
          .TelegramChannel(options);
        channel.dropPendingUpdates = settings.dropPendingUpdates;
        return channel;
      },
    });
    this.#settings = settings;
  }

  get #telegram(): TelegramChannel | null {
    return this.loaded as TelegramChannel | null;
  }

  /** Whether the updates queued before polling starts are dropped (default true). */
  get dropPendingUpdates(): boolean {
    return this.#settings.dropPendingUpdates;
  }

  set dropPendingUpdates(value: boolean) {
    this.#settings.dropPendingUpdates = value;
    const telegram = this.#telegram;
    if (telegram) telegram.dropPendingUpdates = value;
  }

  /** True while long polling runs. */
  get polling(): boolean {
    return this.#telegram?.polling ?? false;
  }

  /** The Telegram file behind a media item of a message it received; null for other items. */
  mediaSource(item: unknown): Record<string, unknown> | null {
    return this.#telegram?.mediaSource(item) ?? null;
  }

  /** Fetches the bytes of a {@link mediaSource}, importing the channel if needed. */
  mediaFetcher(source: Record<string, unknown>): (() => Promise<Uint8Array | null>) | null {
    if (typeof source.fileId !== "string" || source.fileId === "") return null;
    return async () => {
      const telegram = await this.implementation() as TelegramChannel;
      return await telegram.mediaFetcher(source)?.() ?? null;
    };
  }

  /** The typing lifespan for `chatId` (the channel is imported when it is entered). */
  typingLifespan(chatId: string): AsyncDisposable & { enter(): Promise<void> } {
    let lifespan: (AsyncDisposable & { enter(): Promise<void> }) | null = null;
    return {
      enter: async () => {
        const telegram = await this.implementation() as TelegramChannel;
        lifespan ??= telegram.typingLifespan(chatId);
        await lifespan.enter();
      },
      [Symbol.asyncDispose]: async () => {
        await lifespan?.[Symbol.asyncDispose]();
      },
    };
  }
}
