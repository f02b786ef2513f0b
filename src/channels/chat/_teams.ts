/**
 * Microsoft Teams through the Chat SDK's adapter (`@chat-adapter/teams`, built on the Teams SDK;
 * imported when the channel starts). Bot Framework activities arrive at `POST /webhooks/teams`;
 * Bub checks their JWT and gets the bot's tokens itself ({@link BotFrameworkAuth}) so `api_base`
 * can point both login hosts elsewhere; replies go to each activity's `serviceUrl` (the Bot
 * Connector of that conversation). The adapter turns a 429 into an error without the answer's
 * `Retry-After`; Bub's subclass waits (the error's `retryAfter`, else 1 s) and tries again.
 *
 * Files out: the adapter would send every file as a `data:` URL attachment, which Teams shows
 * for small images only. Bub's subclass sends those inline, offers any other file in a personal
 * chat with a consent card (`_teams_files.ts`), and names the rest in a note in the message.
 *
 * @module
 */
import type { Adapter, AdapterPostableMessage, FileUpload, Logger, RawMessage } from "chat";
import { BOT_FRAMEWORK_SCOPE, BotFrameworkAuth } from "./_teams_auth.ts";
import { withNotes } from "./_media.ts";
import { TeamsFileOffers, type TeamsTarget } from "./_teams_files.ts";
import { planTeamsFiles } from "./_teams_media.ts";

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

/** A Teams adapter whose bot token fetches attachments from the Bot Framework service. */
export interface TeamsBotAdapter extends Adapter {
  /** The bot's Bot Connector token. */
  botToken(): Promise<string>;
}

/** The markdown and files of a message posted with files, else null. */
function withFiles(
  message: AdapterPostableMessage,
): { markdown: string; files: FileUpload[] } | null {
  if (typeof message !== "object" || message === null || !("markdown" in message)) return null;
  const files = (message as { files?: FileUpload[] }).files;
  return Array.isArray(files) && files.length > 0 ? { markdown: message.markdown, files } : null;
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
export async function createTeamsAdapter(
  settings: TeamsAdapterSettings,
): Promise<TeamsBotAdapter> {
  const { TeamsAdapter, encodeThreadId } = await import("@chat-adapter/teams");
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

  type Sender = { sendTo(target: TeamsTarget, activity: unknown): Promise<{ id?: string }> };
  type Router = { on(event: string, handler: (ctx: { activity: unknown }) => unknown): void };

  class BubTeamsAdapter extends TeamsAdapter {
    readonly #offers = new TeamsFileOffers({
      state: () => this.chat?.getState() ?? null,
      apiBase: settings.apiBase,
      send: (target, activity) =>
        retried("send", () => (this.app as unknown as Sender).sendTo(target, activity)),
      remove: (target, id) => this.deleteMessage(encodeThreadId(target), id),
    });

    botToken(): Promise<string> {
      return auth.token(BOT_FRAMEWORK_SCOPE);
    }

    protected override registerEventHandlers(): void {
      super.registerEventHandlers();
      const app = this.app as unknown as Router;
      for (const event of ["file.consent.accept", "file.consent.decline"]) {
        app.on(event, async (ctx) => {
          await this.#offers.answer(ctx.activity as Parameters<TeamsFileOffers["answer"]>[0])
            .catch((error: unknown) =>
              logger.error(`Teams file consent failed: ${(error as Error).message}`)
            );
        });
      }
    }

    override async postMessage(
      threadId: string,
      message: AdapterPostableMessage,
    ): Promise<RawMessage<unknown>> {
      const posted = withFiles(message);
      if (posted === null) return await retried("send", () => super.postMessage(threadId, message));
      const plan = await planTeamsFiles(posted.files, this.isDM(threadId));
      const markdown = withNotes(posted.markdown, plan.notes);
      let sent: RawMessage<unknown> | null = null;
      if (markdown.trim() !== "" || plan.inline.length > 0) {
        const files = plan.inline;
        sent = await retried("send", () => super.postMessage(threadId, { markdown, files }));
      }
      const target = this.decodeThreadId(threadId);
      for (const file of plan.offered) {
        const card = await this.#offers.offer(file);
        const activity = { type: "message", attachments: [card] };
        const answer = await retried(
          "send",
          () => (this.app as unknown as Sender).sendTo(target, activity),
        );
        sent ??= { id: answer.id ?? "", threadId, raw: activity };
      }
      return sent ?? { id: "", threadId, raw: null };
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
  }) as unknown as TeamsBotAdapter;
}
