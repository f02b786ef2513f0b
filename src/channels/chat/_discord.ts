/**
 * Discord through the Chat SDK's adapter (`@chat-adapter/discord`, imported when the channel
 * starts). Messages arrive over Discord's gateway: a discord.js client Bub keeps connected while
 * the channel runs (the adapter's own listener is built for serverless: it disconnects after a few
 * minutes), feeding the adapter's gateway handlers; button clicks arrive as HTTP interactions at
 * `POST /webhooks/discord`, which the adapter verifies with the application's Ed25519 public key.
 * `api_base` points both the adapter's REST calls and discord.js (gateway discovery) elsewhere.
 * The adapter throws on a 429; Bub's subclass waits the answer's `retry_after` and tries again.
 *
 * @module
 */
import type { Adapter, Logger } from "chat";
import { BubError } from "../../kernel/errors.ts";
import { postMessageWithFiles } from "./_discord_files.ts";

/** Discord's REST base. */
export const DISCORD_API_BASE = "https://discord.com/api/v10";

/** Most tries of one REST call answered 429. */
const RATE_LIMIT_TRIES = 4;
/** Longest wait for one 429 before giving up (Discord asks for longer only on abuse). */
const MAX_RETRY_AFTER_MS = 60_000;

/** What {@link createDiscordAdapter} needs. */
export interface DiscordAdapterSettings {
  /** The bot token. */
  readonly botToken: string;
  /** The application's public key (hex), for signed interactions. */
  readonly publicKey: string;
  /** The application id. */
  readonly applicationId: string;
  /** The bot's user name. */
  readonly userName: string;
  /** The REST base (`…/api/v10`), null = Discord's own. */
  readonly apiBase: string | null;
  /** The SDK's logger. */
  readonly logger: Logger;
}

/** A Discord adapter with a gateway connection the channel opens and closes. */
export interface DiscordGatewayAdapter extends Adapter {
  /** Connects to the gateway; disposing disconnects. */
  connectGateway(): Promise<AsyncDisposable>;
}

/** The REST base without a trailing slash, and discord.js's `api` + `version` for it. */
export function discordRest(
  apiBase: string | null,
): { base: string; api: string; version: string } {
  const base = (apiBase ?? DISCORD_API_BASE).trim().replace(/\/+$/, "");
  const versioned = /^(.*)\/v(\d+)$/.exec(base);
  if (versioned) return { base, api: versioned[1]!, version: versioned[2]! };
  return { base: `${base}/v10`, api: base, version: "10" };
}

/** Seconds to wait from a 429 error of the adapter (its body's `retry_after`), else null. */
function retryAfterMs(error: unknown): number | null {
  const original = (error as { originalError?: { status?: number; message?: string } })
    ?.originalError;
  if (original?.status !== 429) return null;
  try {
    const seconds = Number(
      (JSON.parse(original.message ?? "") as { retry_after?: unknown })
        .retry_after,
    );
    if (Number.isFinite(seconds) && seconds >= 0) {
      return Math.min(Math.ceil(seconds * 1000), MAX_RETRY_AFTER_MS);
    }
  } catch { /* no JSON body: Discord's default */ }
  return 1000;
}

/** Creates the Discord adapter (imports it and discord.js). */
export async function createDiscordAdapter(
  settings: DiscordAdapterSettings,
): Promise<DiscordGatewayAdapter> {
  const [{ DiscordAdapter }, discord] = await Promise.all([
    import("@chat-adapter/discord"),
    import("discord.js"),
  ]);
  const rest = discordRest(settings.apiBase);
  const logger = settings.logger;

  class BubDiscordAdapter extends DiscordAdapter {
    protected override async discordFetch(
      path: string,
      method: string,
      body?: unknown,
    ): Promise<Response> {
      for (let attempt = 1;; attempt++) {
        try {
          return await super.discordFetch(path, method, body);
        } catch (error) {
          const wait = retryAfterMs(error);
          if (wait === null || attempt >= RATE_LIMIT_TRIES) throw error;
          logger.warn(`Discord rate limit on ${method} ${path}: retrying in ${wait} ms`);
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    }

    async connectGateway(): Promise<AsyncDisposable> {
      const { Client, Events, GatewayIntentBits, Partials } = discord;
      const client = new Client({
        intents: [
          GatewayIntentBits.Guilds,
          GatewayIntentBits.GuildMessages,
          GatewayIntentBits.MessageContent,
          GatewayIntentBits.DirectMessages,
          GatewayIntentBits.GuildMessageReactions,
          GatewayIntentBits.DirectMessageReactions,
        ],
        partials: [Partials.Channel],
        rest: { api: rest.api, version: rest.version },
      });
      let stopping = false;
      this.setupLegacyGatewayHandlers(client, () => stopping);
      client.on(Events.Error, (error) => logger.error(`Discord gateway error: ${error}`));
      const ready = new Promise<void>((resolve) =>
        client.once(Events.ClientReady, () => resolve())
      );
      try {
        await client.login(settings.botToken);
        await ready;
      } catch (error) {
        stopping = true;
        await client.destroy().catch(() => {});
        throw new BubError(
          "config",
          `Cannot connect to the Discord gateway (check BUB_DISCORD_BOT_TOKEN and ` +
            `BUB_DISCORD_API_BASE): ${(error as Error).message}`,
          { platform: "discord" },
          { cause: error },
        );
      }
      return {
        [Symbol.asyncDispose]: async () => {
          stopping = true;
          await client.destroy();
        },
      };
    }
  }

  const adapter = new BubDiscordAdapter({
    botToken: settings.botToken,
    publicKey: settings.publicKey,
    applicationId: settings.applicationId,
    userName: settings.userName,
    apiUrl: rest.base,
    logger,
  });
  // The adapter's own (private) file post ignores apiUrl: files would bypass api_base.
  Object.defineProperty(adapter, "postMessageWithFiles", {
    value: postMessageWithFiles(rest.base, settings.botToken),
  });
  return adapter as unknown as DiscordGatewayAdapter;
}
