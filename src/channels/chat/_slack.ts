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
 * adapter's initialization, so that in a cluster only the elected instance holds it.
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

/** Creates the Slack adapter (imports it). */
export async function createSlackAdapter(
  settings: SlackAdapterSettings,
): Promise<SlackSocketAdapter> {
  const { SlackAdapter } = await import("@chat-adapter/slack");

  class BubSlackAdapter extends SlackAdapter {
    /** Not at initialization: {@link connectSocket} connects, on the elected instance. */
    protected override startSocketMode(): Promise<void> {
      return Promise.resolve();
    }

    async connectSocket(): Promise<AsyncDisposable> {
      try {
        await super.startSocketMode();
      } catch (error) {
        await this.disconnect().catch(() => {});
        throw new BubError(
          "config",
          "Cannot connect to Slack in socket mode (check BUB_SLACK_APP_TOKEN and " +
            `BUB_SLACK_API_BASE): ${(error as Error).message}`,
          { platform: "slack" },
          { cause: error },
        );
      }
      return { [Symbol.asyncDispose]: () => this.disconnect() };
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
    logger: settings.logger,
  });
  return adapter as unknown as SlackSocketAdapter;
}
