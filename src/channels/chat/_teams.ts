/**
 * Microsoft Teams through the Chat SDK's adapter (`@chat-adapter/teams`, built on the Teams SDK;
 * imported when the channel starts). Bot Framework activities arrive at `POST /webhooks/teams`;
 * Bub checks their JWT and gets the bot's tokens itself ({@link BotFrameworkAuth}) so `api_base`
 * can point both login hosts elsewhere; replies go to each activity's `serviceUrl` (the Bot
 * Connector of that conversation). The adapter turns a 429 into an error without the answer's
 * `Retry-After`; Bub's subclass waits (the error's `retryAfter`, else 1 s) and tries again.
 *
 * @module
 */
import type { Adapter, AdapterPostableMessage, Logger, RawMessage } from "chat";
import { BotFrameworkAuth } from "./_teams_auth.ts";

/** Most tries of one call answered 429. */
const RATE_LIMIT_TRIES = 4;
/** Longest wait for one 429. */
const MAX_RETRY_AFTER_MS = 60_000;

/** What {@link createTeamsAdapter} needs. */
export interface TeamsAdapterSettings {
  /** The bot's Microsoft app id. */
  readonly appId: string;
  /** The app's client secret. */
  readonly appPassword: string;
  /** The tenant of a single-tenant app; empty = multi-tenant. */
  readonly tenantId: string;
  /** The bot's user name. */
  readonly userName: string;
  /** One base for Bot Framework's OpenID metadata and the token endpoint; null = Microsoft's. */
  readonly apiBase: string | null;
  /** The SDK's logger. */
  readonly logger: Logger;
}

/** The wait a 429 of the adapter asks for, else null. */
function retryAfterMs(error: unknown): number | null {
  const rate = error as { code?: unknown; retryAfter?: unknown } | null;
  if (rate?.code !== "RATE_LIMITED") return null;
  const seconds = Number(rate.retryAfter);
  if (Number.isFinite(seconds) && seconds > 0) {
    return Math.min(Math.ceil(seconds * 1000), MAX_RETRY_AFTER_MS);
  }
  return 1000;
}

/** Creates the Teams adapter (imports it and the Teams SDK). */
export async function createTeamsAdapter(settings: TeamsAdapterSettings): Promise<Adapter> {
  const { TeamsAdapter } = await import("@chat-adapter/teams");
  const auth = new BotFrameworkAuth(settings);
  const logger = settings.logger;

  async function retried<T>(what: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1;; attempt++) {
      try {
        return await call();
      } catch (error) {
        const wait = retryAfterMs(error);
        if (wait === null || attempt >= RATE_LIMIT_TRIES) throw error;
        logger.warn(`Teams rate limit on ${what}: retrying in ${wait} ms`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  class BubTeamsAdapter extends TeamsAdapter {
    override postMessage(
      threadId: string,
      message: AdapterPostableMessage,
    ): Promise<RawMessage<unknown>> {
      return retried("send", () => super.postMessage(threadId, message));
    }

    override editMessage(
      threadId: string,
      messageId: string,
      message: AdapterPostableMessage,
    ): Promise<RawMessage<unknown>> {
      return retried("update", () => super.editMessage(threadId, messageId, message));
    }
  }

  const tenantId = settings.tenantId.trim();
  return new BubTeamsAdapter({
    appId: settings.appId,
    ...(tenantId ? { appType: "SingleTenant", appTenantId: tenantId } : { appType: "MultiTenant" }),
    userName: settings.userName,
    token: (scope, tenant) => auth.token(Array.isArray(scope) ? scope.join(" ") : scope, tenant),
    webhookVerifier: (request, body) => auth.verify(request, body),
    logger,
  }) as unknown as Adapter;
}
