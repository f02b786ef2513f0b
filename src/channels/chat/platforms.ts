/**
 * The chat platforms the {@link ChatChannel} hosts through Vercel's Chat SDK: how each one's
 * adapter is created from Bub's settings (imported only when the platform starts), its
 * credentials, and how Bub names its conversations.
 *
 * @module
 */
import type { Adapter, Logger } from "chat";
import { redactSecrets } from "../../_internal/redact.ts";
import { getLogger } from "../../_internal/log.ts";
import { BubError } from "../../kernel/errors.ts";

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
  /** Slack: the signing secret. */
  signingSecret?: string;
  /** GitHub: a personal access token. */
  token?: string;
  /** GitHub, Linear: the webhook secret. */
  webhookSecret?: string;
  /** Discord: the application's public key (hex), which signs its interactions. */
  publicKey?: string;
  /** Discord: the application id. */
  applicationId?: string;
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
  /** Opens the platform's outward connection (Discord's gateway), if it has one. */
  connect?(adapter: Adapter): Promise<AsyncDisposable>;
}

function required(platform: string, value: string | undefined, env: string): string {
  if (value && value.trim() !== "") return value.trim();
  throw new BubError("config", `Cannot start the ${platform} channel: set ${env}`, {
    platform,
  });
}

/** Slack through the Events API (webhooks signed with the signing secret). */
const SLACK: ChatPlatform = {
  name: "slack",
  answersStrangers: true,
  ephemeralRefusals: true,
  buttons: true,
  configured: (c) => (c.botToken ?? "").trim() !== "",
  secrets: (c) => [c.botToken ?? "", c.signingSecret ?? ""],
  async createAdapter(c, logger) {
    const { createSlackAdapter } = await import("@chat-adapter/slack");
    const apiBase = c.apiBase ? c.apiBase.replace(/\/*$/, "/") : undefined;
    return createSlackAdapter({
      botToken: required("slack", c.botToken, "BUB_SLACK_BOT_TOKEN"),
      signingSecret: required("slack", c.signingSecret, "BUB_SLACK_SIGNING_SECRET"),
      ...(apiBase ? { apiUrl: apiBase } : {}),
      logger,
    }) as unknown as Adapter;
  },
  channelKeys: (id) => [id],
};

/** GitHub issue and pull-request comments (webhooks signed with the webhook secret). */
const GITHUB: ChatPlatform = {
  name: "github",
  answersStrangers: false,
  ephemeralRefusals: false,
  buttons: false,
  configured: (c) => (c.token ?? "").trim() !== "",
  secrets: (c) => [c.token ?? "", c.webhookSecret ?? ""],
  async createAdapter(c, logger) {
    const { createGitHubAdapter } = await import("@chat-adapter/github");
    const apiBase = c.apiBase ? c.apiBase.replace(/\/+$/, "") : undefined;
    return createGitHubAdapter({
      token: required("github", c.token, "BUB_GITHUB_TOKEN"),
      webhookSecret: required("github", c.webhookSecret, "BUB_GITHUB_WEBHOOK_SECRET"),
      userName: c.userName || "bub",
      ...(apiBase ? { apiUrl: apiBase } : {}),
      logger,
    }) as unknown as Adapter;
  },
  channelKeys: (id) => [id],
};

/**
 * Linear issue comments (webhooks signed with the webhook secret; answers are replies under the
 * comment, edited while they stream). A channel id is the id.
 */
const LINEAR: ChatPlatform = {
  name: "linear",
  // Like GitHub: a comment thread is shared by the whole workspace, so no refusals there.
  answersStrangers: false,
  ephemeralRefusals: false,
  buttons: false,
  configured: (c) => (c.apiKey ?? "").trim() !== "" || (c.accessToken ?? "").trim() !== "",
  secrets: (c) => [c.apiKey ?? "", c.accessToken ?? "", c.webhookSecret ?? ""],
  async createAdapter(c, logger) {
    const { createLinearAdapter } = await import("./_linear.ts");
    const accessToken = (c.accessToken ?? "").trim();
    return await createLinearAdapter({
      ...(accessToken
        ? { accessToken }
        : { apiKey: required("linear", c.apiKey, "BUB_LINEAR_API_KEY") }),
      webhookSecret: required("linear", c.webhookSecret, "BUB_LINEAR_WEBHOOK_SECRET"),
      userName: c.userName || "bub",
      apiBase: c.apiBase ? c.apiBase.trim() : null,
      logger,
    });
  },
  channelKeys: (id) => [id],
};

/**
 * Google Chat as an HTTP-endpoint app (events with a Bearer JWT signed by Google; answers through
 * the Chat API with a service account). A channel id is the space (`spaces/AAA`), which
 * `allow_channels` may name with or without `spaces/`.
 */
const GCHAT: ChatPlatform = {
  name: "gchat",
  answersStrangers: true,
  // privateMessageViewer: only the refused user sees the answer.
  ephemeralRefusals: true,
  buttons: true,
  configured: (c) => (c.serviceAccount ?? "").trim() !== "",
  secrets(c) {
    const key = (c.serviceAccount ?? "").trim();
    if (!key.startsWith("{")) return []; // a file path: the key itself never reaches a log line
    let privateKey = "";
    try {
      privateKey = String((JSON.parse(key) as { private_key?: unknown }).private_key ?? "");
    } catch { /* not JSON: the whole value is the secret */ }
    return [key, privateKey, JSON.stringify(privateKey).slice(1, -1)].filter((s) => s !== "");
  },
  async createAdapter(c, logger) {
    const { createGoogleChatAdapter } = await import("./_gchat.ts");
    const projectNumber = (c.projectNumber ?? "").trim() || null;
    const endpointUrl = (c.endpointUrl ?? "").trim() || null;
    if (!projectNumber && !endpointUrl) {
      required("gchat", "", "BUB_GCHAT_PROJECT_NUMBER (or BUB_GCHAT_ENDPOINT_URL)");
    }
    return await createGoogleChatAdapter({
      credentials: required("gchat", c.serviceAccount, "BUB_GCHAT_CREDENTIALS"),
      projectNumber,
      endpointUrl,
      botUserId: (c.botUserId ?? "").trim() || null,
      userName: c.userName || "bub",
      apiBase: c.apiBase ? c.apiBase.trim() : null,
      tokenUrl: c.tokenUrl ? c.tokenUrl.trim() : null,
      certsUrl: c.certsUrl ? c.certsUrl.trim() : null,
      addOnServiceAccount: (c.addOnServiceAccount ?? "").trim() || null,
      oidcCertsUrl: c.oidcCertsUrl ? c.oidcCertsUrl.trim() : null,
      logger,
    });
  },
  channelKeys: (id) => [id, id.replace(/^spaces\//, "")],
};

/**
 * Discord: messages over the gateway, button clicks as interactions signed with the
 * application's Ed25519 key. A channel id is `<guild>:<channel>` (`@me:<dm>` for a DM), and
 * `allow_channels` may name the channel or the whole guild (server).
 */
const DISCORD: ChatPlatform = {
  name: "discord",
  answersStrangers: true,
  // The adapter has no ephemeral messages outside interaction answers.
  ephemeralRefusals: false,
  buttons: true,
  configured: (c) => (c.botToken ?? "").trim() !== "",
  secrets: (c) => [c.botToken ?? ""],
  async createAdapter(c, logger) {
    const { createDiscordAdapter } = await import("./_discord.ts");
    return await createDiscordAdapter({
      botToken: required("discord", c.botToken, "BUB_DISCORD_BOT_TOKEN"),
      publicKey: required("discord", c.publicKey, "BUB_DISCORD_PUBLIC_KEY"),
      applicationId: required("discord", c.applicationId, "BUB_DISCORD_APPLICATION_ID"),
      userName: c.userName || "bub",
      apiBase: c.apiBase ?? null,
      logger,
    });
  },
  channelKeys(id) {
    const [guild = "", channel = ""] = id.split(":");
    return [channel, guild, id].filter((key) => key !== "" && key !== "@me");
  },
  connect: (adapter) =>
    (adapter as unknown as { connectGateway(): Promise<AsyncDisposable> }).connectGateway(),
};

/**
 * The platforms by name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CHAT_PLATFORMS } from "./platforms.ts";
 * assert.ok(CHAT_PLATFORMS.slack?.configured({ botToken: "xoxb-1" }));
 * ```
 */
export const CHAT_PLATFORMS: Readonly<Record<string, ChatPlatform>> = {
  slack: SLACK,
  github: GITHUB,
  discord: DISCORD,
  linear: LINEAR,
  gchat: GCHAT,
};

/** A Chat SDK logger writing to Bub's log (category `bub.channels.<platform>`), secrets redacted. */
export function sdkLogger(platform: string, secrets: readonly string[]): Logger {
  const make = (path: readonly [string, ...string[]]): Logger => {
    const log = getLogger(path);
    const line = (message: string, args: unknown[]): [string, Record<string, unknown>] => {
      let detail = "";
      if (args.length > 0) {
        try {
          detail = " " +
            JSON.stringify(
              args,
              (_key, value) => value instanceof Error ? `${value.name}: ${value.message}` : value,
            );
        } catch {
          detail = " " + String(args);
        }
      }
      return ["{line}", { line: redactSecrets(`${message}${detail}`, secrets) }];
    };
    return {
      child: (prefix) => make([...path, prefix]),
      debug: (message, ...args) => log.debug(...line(message, args)),
      info: (message, ...args) => log.debug(...line(message, args)),
      warn: (message, ...args) => log.warning(...line(message, args)),
      error: (message, ...args) => log.error(...line(message, args)),
    };
  };
  return make(["bub", "channels", platform, "sdk"]);
}
