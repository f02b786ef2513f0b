/**
 * The chat platforms the {@link ChatChannel} hosts through Vercel's Chat SDK: how each one's
 * adapter is created from Bub's settings (imported only when the platform starts), its
 * credentials, and how Bub names its conversations.
 *
 * @module
 */
import type { Adapter } from "chat";
import { type ChatPlatform, required } from "./chat_platform.ts";
import { githubMediaMarkdown, githubMediaSource } from "./_github_media.ts";
import { type LinearFileUpload, linearMediaMarkdown, linearMediaSource } from "./_linear_media.ts";
import { linkedFiles, urlMedia } from "./_media.ts";
import { mediaSource } from "./_media_fetch.ts";
import type { GoogleChatMediaAdapter } from "./_gchat.ts";
import { gchatInboundMedia } from "./_gchat_media.ts";
import type { TeamsBotAdapter } from "./_teams.ts";
import { teamsInboundMedia } from "./_teams_media.ts";
import {
  createSlackAdapter,
  slackMode,
  type SlackSocketAdapter,
  slackSocketJob,
} from "./_slack.ts";

/**
 * Slack: the Events API (webhooks signed with the signing secret) or socket mode (an outward
 * WebSocket opened with the app-level token; no webhook route).
 */
const SLACK: ChatPlatform = {
  name: "slack",
  answersStrangers: true,
  ephemeralRefusals: true,
  buttons: true,
  configured: (c) => (c.botToken ?? "").trim() !== "",
  secrets: (c) => [c.botToken ?? "", c.signingSecret ?? "", c.appToken ?? ""],
  async createAdapter(c, logger) {
    const mode = slackMode(c);
    return await createSlackAdapter({
      botToken: required("slack", c.botToken, "BUB_SLACK_BOT_TOKEN"),
      mode,
      signingSecret: mode === "webhook"
        ? required("slack", c.signingSecret, "BUB_SLACK_SIGNING_SECRET")
        : null,
      appToken: mode === "socket" ? required("slack", c.appToken, "BUB_SLACK_APP_TOKEN") : null,
      apiBase: c.apiBase ? c.apiBase.replace(/\/*$/, "/") : null,
      logger,
    });
  },
  channelKeys: (id) => [id],
  webhooks: (c) => slackMode(c) === "webhook",
  // Slack's private file URLs want the bot token.
  inboundMedia: (c) =>
    urlMedia(mediaSource("slack", c.apiBase, c.botToken ? `Bearer ${c.botToken}` : null)),
  connection(c) {
    if (slackMode(c) !== "socket") return null;
    return {
      job: slackSocketJob(c.appToken ?? ""),
      open: (adapter) => (adapter as SlackSocketAdapter).connectSocket(),
    };
  },
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
  webhooks: () => true,
  inboundMedia: (c) => linkedFiles(githubMediaSource(c.apiBase, (c.token ?? "").trim())),
  mediaMarkdown: (media) => Promise.resolve(githubMediaMarkdown(media)),
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
  webhooks: () => true,
  inboundMedia(c) {
    const accessToken = (c.accessToken ?? "").trim();
    const apiBase = c.apiBase ? c.apiBase.trim() : null;
    return linkedFiles(linearMediaSource(
      apiBase,
      accessToken ? `Bearer ${accessToken}` : c.apiKey?.trim() || null,
    ));
  },
  mediaMarkdown(media, adapter) {
    const linear = adapter as unknown as { uploadFile: LinearFileUpload };
    return linearMediaMarkdown(media, (type, name, size) => linear.uploadFile(type, name, size));
  },
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
  webhooks: () => true,
  inboundMedia: (c, adapter) =>
    gchatInboundMedia(c.apiBase, () => (adapter as GoogleChatMediaAdapter).accessToken()),
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
  // Button clicks arrive as signed interactions.
  webhooks: () => true,
  // Discord's CDN URLs are signed.
  // Discord's CDN URLs are signed: no token.
  inboundMedia: (c) => urlMedia(mediaSource("discord", c.apiBase, null)),
  connection: (c) => ({
    job: `discord-gateway:${c.applicationId ?? ""}`,
    open: (adapter) =>
      (adapter as unknown as { connectGateway(): Promise<AsyncDisposable> }).connectGateway(),
  }),
};

/** Decodes a base64url text (Teams thread ids); "" when it is not one. */
function fromBase64Url(text: string): string {
  try {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(base64 + "=".repeat((4 - base64.length % 4) % 4));
    return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return "";
  }
}

/**
 * Microsoft Teams: Bot Framework activities at `POST /webhooks/teams`, checked and answered with
 * Bub's Bot Framework authentication (`_teams_auth.ts`). A channel id is
 * `<conversation>:<serviceUrl>` in base64url; `allow_channels` names the conversation id (a
 * channel's `19:…@thread.tacv2`, a chat's `19:…@thread.v2`, a DM's `a:…`).
 */
const TEAMS: ChatPlatform = {
  name: "teams",
  answersStrangers: true,
  // The adapter's ephemeral messages are Teams' targeted messages, still a preview feature.
  ephemeralRefusals: false,
  buttons: true,
  configured: (c) => (c.appId ?? "").trim() !== "",
  secrets: (c) => [c.appPassword ?? ""],
  async createAdapter(c, logger) {
    const { createTeamsAdapter } = await import("./_teams.ts");
    return await createTeamsAdapter({
      appId: required("teams", c.appId, "BUB_TEAMS_APP_ID"),
      appPassword: required("teams", c.appPassword, "BUB_TEAMS_APP_PASSWORD"),
      tenantId: c.tenantId ?? "",
      userName: c.userName || "bub",
      apiBase: c.apiBase ?? null,
      logger,
    });
  },
  channelKeys(id) {
    const conversation = fromBase64Url(id.split(":")[0] ?? "");
    return [conversation.replace(/;messageid=.*$/, ""), id].filter((key) => key !== "");
  },
  webhooks: () => true,
  inboundMedia: (c, adapter) =>
    teamsInboundMedia(c.apiBase, () => (adapter as TeamsBotAdapter).botToken()),
  streamPlaceholder: "...",
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
  teams: TEAMS,
  linear: LINEAR,
  gchat: GCHAT,
};
