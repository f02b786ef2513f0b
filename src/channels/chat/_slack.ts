/**
 * Slack through the Chat SDK's adapter (`@chat-adapter/slack`, imported when the channel starts),
 * in one of two modes:
 *
 * - `webhook`: the Events API posts to `POST /webhooks/slack`, signed with the signing secret;
 * - `socket`: socket mode — no public URL and no signing secret; the adapter's Socket Mode client
 *   asks `apps.connections.open` (at `api_base`) with the app-level token (`xapp-…`) for a
 *   WebSocket URL, connects outward, acknowledges every envelope by its `envelope_id` and
 *   reconnects when Slack drops the socket (a `disconnect` message, a lost connection).
 *
 * Bub opens the socket itself ({@link SlackSocketAdapter.connectSocket}) rather than at the
 * adapter's initialization, so that in a cluster only the elected instance holds it; its client
 * (`@slack/socket-mode`, as the adapter's) logs to Bub's log instead of the console.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Adapter, Logger } from "chat";
import { BubError } from "../../kernel/errors.ts";

/** How the Slack channel receives events. */
export type SlackMode = "webhook" | "socket";

/** The Slack credentials {@link slackMode} looks at. */
export interface SlackModeCredentials {
  readonly signingSecret?: string;
  readonly appToken?: string;
  readonly mode?: string | null;
}

function filled(value: string | undefined | null): boolean {
  return (value ?? "").trim() !== "";
}

/**
 * The mode of a Slack app: the `mode` setting when given, else `socket` when an app token is set
 * and no signing secret (an app configured for socket mode has nothing to sign), else `webhook`.
 *
 * @throws {BubError} (`config`) for a mode that is neither
 */
export function slackMode(credentials: SlackModeCredentials): SlackMode {
  const mode = (credentials.mode ?? "").trim();
  if (mode === "webhook" || mode === "socket") return mode;
  if (mode !== "") {
    throw new BubError(
      "config",
      `Cannot start the slack channel: BUB_SLACK_MODE must be webhook or socket, got ${
        JSON.stringify(mode)
      }`,
      { platform: "slack" },
    );
  }
  return filled(credentials.appToken) && !filled(credentials.signingSecret) ? "socket" : "webhook";
}

/** The cluster job of one app's socket: named by a digest of the app token, never the token. */
export function slackSocketJob(appToken: string): string {
  const digest = createHash("sha256").update(appToken.trim()).digest("hex").slice(0, 16);
  return `slack-socket:${digest}`;
}

/** What {@link createSlackAdapter} needs. */
export interface SlackAdapterSettings {
  /** The bot token (`xoxb-…`). */
  readonly botToken: string;
  /** `webhook` or `socket`. */
  readonly mode: SlackMode;
  /** The signing secret (webhook mode). */
  readonly signingSecret: string | null;
  /** The app-level token (socket mode). */
  readonly appToken: string | null;
  /** The Web API base ending in `/`, null = Slack's own. */
  readonly apiBase: string | null;
  /** The SDK's logger. */
  readonly logger: Logger;
}

/** A Slack adapter whose socket-mode connection the channel opens and closes. */
export interface SlackSocketAdapter extends Adapter {
  /** Connects the socket (socket mode); disposing disconnects. */
  connectSocket(): Promise<AsyncDisposable>;
}

/** The Socket Mode client's logger over the SDK's (Bub's log, secrets redacted). */
function socketLogger(logger: Logger, level: unknown): unknown {
  return {
    // Debug lines carry whole envelopes (an event's verification token among them): dropped.
    debug: () => {},
    info: (...parts: unknown[]) => logger.debug(`Socket Mode: ${parts.join(" ")}`),
    warn: (...parts: unknown[]) => logger.warn(`Socket Mode: ${parts.join(" ")}`),
    error: (...parts: unknown[]) => logger.error(`Socket Mode: ${parts.join(" ")}`),
    setLevel: () => {},
    getLevel: () => level,
    setName: () => {},
  };
}

/** Creates the Slack adapter (imports it, and in socket mode the Socket Mode client). */
export async function createSlackAdapter(
  settings: SlackAdapterSettings,
): Promise<SlackSocketAdapter> {
  const [{ SlackAdapter }, socketMode] = await Promise.all([
    import("@chat-adapter/slack"),
    settings.mode === "socket" ? import("@slack/socket-mode") : null,
  ]);
  const logger = settings.logger;

  class BubSlackAdapter extends SlackAdapter {
    /** Not at initialization: {@link connectSocket} connects, on the elected instance. */
    protected override startSocketMode(): Promise<void> {
      return Promise.resolve();
    }

    /**
     * Opens the socket as the adapter would, with the client logging to Bub's log (its own
     * logger writes to the console) and a failing event logged rather than left unhandled.
     */
    async connectSocket(): Promise<AsyncDisposable> {
      if (socketMode === null || !settings.appToken) {
        throw new BubError("config", "Cannot connect to Slack: the channel is not in socket mode", {
          platform: "slack",
        });
      }
      const { SocketModeClient, LogLevel } = socketMode;
      type Options = NonNullable<ConstructorParameters<typeof SocketModeClient>[0]>;
      const client = new SocketModeClient({
        appToken: settings.appToken,
        logger: socketLogger(logger, LogLevel.INFO) as Options["logger"],
        ...(settings.apiBase ? { clientOptions: { slackApiUrl: settings.apiBase } } : {}),
      });
      client.on("slack_event", async (event: SocketEvent) => {
        try {
          await this.routeSocketEvent(
            event.body,
            event.type,
            event.ack,
            undefined,
            event.retry_num,
          );
        } catch (error) {
          logger.error(`Slack socket event ${event.type} failed: ${(error as Error).message}`);
        }
      });
      try {
        await client.start();
      } catch (error) {
        await client.disconnect().catch(() => {});
        throw new BubError(
          "config",
          "Cannot connect to Slack in socket mode (check BUB_SLACK_APP_TOKEN and " +
            `BUB_SLACK_API_BASE): ${(error as Error).message}`,
          { platform: "slack" },
          { cause: error },
        );
      }
      logger.info("Slack socket mode connected");
      return { [Symbol.asyncDispose]: () => client.disconnect() };
    }
  }

  const socket = settings.mode === "socket";
  const adapter = new BubSlackAdapter({
    botToken: settings.botToken,
    mode: settings.mode,
    // Each mode gets its own credential only: with an app token set, the adapter would also
    // accept webhooks "forwarded" with that token in place of a signature.
    ...(socket
      ? { appToken: settings.appToken ?? "" }
      : { signingSecret: settings.signingSecret ?? "" }),
    ...(settings.apiBase ? { apiUrl: settings.apiBase } : {}),
    logger,
  });
  return adapter as unknown as SlackSocketAdapter;
}

/** What the Socket Mode client emits as `slack_event`. */
interface SocketEvent {
  readonly ack: (response?: Record<string, unknown>) => Promise<void>;
  readonly body: Record<string, unknown>;
  readonly type: string;
  readonly retry_num?: number;
}
