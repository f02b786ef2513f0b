/**
 * What Bub needs of a chat platform hosted through Vercel's Chat SDK: the credentials it is
 * configured with (Bub's setting names), what the chat channel asks of it, and its
 * outward connection if it has one. The platforms themselves are in `platforms.ts`.
 *
 * @module
 */
import type { Adapter, Logger } from "chat";
import { BubError } from "../../kernel/errors.ts";
import type { InboundMedia } from "./_media.ts";
import type { OutboundMedia } from "./_outbound_media.ts";

/**
 * The credentials and endpoints of one platform (Bub's setting names).
 *
 * @example
 * ```ts
 * import type { ChatCredentials } from "@bub/core/channels";
 * const slack: ChatCredentials = {
 *   botToken: "xoxb-1",
 *   signingSecret: "secret",
 *   apiBase: "http://127.0.0.1:9000/api/", // a proxy or a fake
 * };
 * ```
 */
export interface ChatCredentials {
  /** Slack: the bot token (`xoxb-…`). */
  botToken?: string;
  /** Slack: the signing secret (webhook mode). */
  signingSecret?: string;
  /** Slack: the app-level token (`xapp-…`) of socket mode. */
  appToken?: string;
  /**
   * Slack: `webhook` or `socket`; unset = socket when `appToken` is set and `signingSecret` is
   * not.
   */
  mode?: string | null;
  /** GitHub: a personal access token. */
  token?: string;
  /** GitHub, Linear: the webhook secret. */
  webhookSecret?: string;
  /** Discord: the application's public key (hex), which signs its interactions. */
  publicKey?: string;
  /** Discord: the application id. */
  applicationId?: string;
  /** Teams: the bot's Microsoft app id. */
  appId?: string;
  /** Teams: the app's client secret. */
  appPassword?: string;
  /** Teams: the tenant of a single-tenant app (empty: multi-tenant). */
  tenantId?: string;
  /** Linear: a personal API key. */
  apiKey?: string;
  /** Linear: an OAuth access token (instead of the API key). */
  accessToken?: string;
  /** Google Chat: the service account key (its JSON, or the path of its JSON file). */
  serviceAccount?: string;
  /** Google Chat: the Google Cloud project number (the audience of Google Chat's tokens). */
  projectNumber?: string;
  /** Google Chat: the app's HTTP endpoint URL (an accepted token audience). */
  endpointUrl?: string;
  /** Google Chat: the app's user resource name (`users/123…`). */
  botUserId?: string;
  /** Google Chat: the OAuth token endpoint (proxies, tests); null = Google's. */
  tokenUrl?: string | null;
  /** Google Chat: the certificates of Google Chat's signing account; null = Google's. */
  certsUrl?: string | null;
  /** Google Chat: the app's Workspace add-on service account (signs add-on events). */
  addOnServiceAccount?: string;
  /** Google Chat: Google's OIDC certificates; null = Google's. */
  oidcCertsUrl?: string | null;
  /** The bot's user name (GitHub: its login, which mentions name). */
  userName?: string;
  /** The platform's Web API base URL (proxies, tests); null = the platform's own. */
  apiBase?: string | null;
}

/** What Bub needs to know of a platform. */
export interface ChatPlatform {
  /** The channel name and the Chat SDK adapter key (`slack`). */
  readonly name: string;
  /** Whether strangers get a refusal reply (a public GitHub issue gets none: no spam). */
  readonly answersStrangers: boolean;
  /** Whether that answer is ephemeral: only the refused user sees it (Slack). */
  readonly ephemeralRefusals: boolean;
  /** Whether approvals get native buttons (Slack Block Kit). */
  readonly buttons: boolean;
  /** True when the credentials needed to serve are set. */
  configured(credentials: ChatCredentials): boolean;
  /** The secrets to redact from log lines. */
  secrets(credentials: ChatCredentials): string[];
  /** Creates the Chat SDK adapter (imports the adapter package). */
  createAdapter(credentials: ChatCredentials, logger: Logger): Promise<Adapter>;
  /** The ids `allow_channels` may name for an SDK channel id (without the platform prefix). */
  channelKeys(channelId: string): string[];
  /** Whether the platform receives webhooks (at `POST /webhooks/<name>`) with these credentials. */
  webhooks(credentials: ChatCredentials): boolean;
  /**
   * The platform's outward connection (Discord's gateway, Slack's socket mode), if it has one
   * with these credentials: the cluster job naming it (one instance holds it) and how to open it.
   */
  connection?(credentials: ChatCredentials): OutwardConnection | null;
  /**
   * The Markdown an answer's media adds to its post, where the adapter drops files (GitHub,
   * Linear); absent: the SDK posts the files. Must not throw for a file that fails (it is
   * named in the Markdown instead).
   */
  mediaMarkdown?(media: OutboundMedia, adapter: Adapter): Promise<string>;
  /**
   * How the attachments of inbound messages are found and fetched through the started `adapter`
   * (its tokens); unset: each attachment's URL, from the platform's file hosts and the `api_base`
   * host, without authorization.
   */
  inboundMedia?(credentials: ChatCredentials, adapter: Adapter): InboundMedia;
  /**
   * The text a streamed answer is posted as before its first edit, where the SDK would otherwise
   * buffer the stream into one post at its end (Teams outside a DM's open webhook).
   */
  readonly streamPlaceholder?: string;
}

/** An outward connection of a platform (see {@link ChatPlatform.connection}). */
export interface OutwardConnection {
  /** The job a cluster elects one holder of (`discord-gateway:<application id>`). */
  readonly job: string;
  /** Opens the connection through the started adapter; disposing closes it. */
  open(adapter: Adapter): Promise<AsyncDisposable>;
}

/** The trimmed `value`, or a config error naming the environment variable to set. */
export function required(platform: string, value: string | undefined, env: string): string {
  if (value && value.trim() !== "") return value.trim();
  throw new BubError("config", `Cannot start the ${platform} channel: set ${env}`, {
    platform,
  });
}
