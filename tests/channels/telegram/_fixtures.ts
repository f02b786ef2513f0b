/**
 * Fixtures for Telegram channel tests: a fake Bot API server and a started channel whose inbound
 * messages land in an inbox.
 *
 * @module
 */
import type { ChannelMessage } from "../../../src/kernel/channel_message.ts";
import {
  TelegramChannel,
  type TelegramChannelOptions,
} from "../../../src/channels/telegram/telegram_channel.ts";
import { FakeTelegramServer } from "../../../src/testing/fake_telegram.ts";

/** A running channel against a fake server. Dispose it to stop both. */
export interface BotFixture extends AsyncDisposable {
  readonly server: FakeTelegramServer;
  readonly channel: TelegramChannel;
  /** Every message the handler received, in order. */
  readonly inbox: ChannelMessage[];
  /** Resolves once the inbox holds `count` messages (rejects after 10 s). */
  received(count: number): Promise<ChannelMessage[]>;
}

/**
 * Starts a fake server and a Telegram channel polling it (default `allowUsers: ["*"]`); waits
 * until polling runs. Pass `fake` to use a server started with options; it is closed on disposal.
 */
export async function startBot(
  options: Partial<TelegramChannelOptions> = {},
  fake?: FakeTelegramServer,
): Promise<BotFixture> {
  const server = fake ?? await FakeTelegramServer.start();
  const inbox: ChannelMessage[] = [];
  const waiters = new Set<() => void>();
  const channel = new TelegramChannel({
    handler: (message) => {
      inbox.push(message as ChannelMessage);
      for (const wake of [...waiters]) wake();
      return Promise.resolve();
    },
    token: server.token,
    apiRoot: server.apiRoot,
    allowUsers: ["*"],
    ...options,
  });
  const stop = async () => {
    await channel.stop();
    await server.close();
  };
  try {
    await channel.start(new AbortController());
    await server.waitForCalls("getUpdates");
  } catch (error) {
    await stop();
    throw error;
  }
  const received = (count: number) =>
    new Promise<ChannelMessage[]>((resolve, reject) => {
      const wake = () => {
        if (inbox.length < count) return;
        clearTimeout(timer);
        waiters.delete(wake);
        resolve(inbox.slice(0, count));
      };
      const timer = setTimeout(() => {
        waiters.delete(wake);
        reject(new Error(`Timed out waiting for ${count} inbound message(s); got ${inbox.length}`));
      }, 10_000);
      waiters.add(wake);
      wake();
    });
  return { server, channel, inbox, received, [Symbol.asyncDispose]: stop };
}

/** Parses an inbound message's JSON content. */
export function contentJson(message: ChannelMessage): Record<string, unknown> {
  return JSON.parse(message.content) as Record<string, unknown>;
}
