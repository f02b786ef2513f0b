/**
 * The settings of the Chat SDK channels: one section per platform under `channels:` in
 * `config.yml` (`channels: { slack: { bot_token, … } }`, env `BUB_SLACK_*`; `github`, env
 * `BUB_GITHUB_*`; `discord`, env `BUB_DISCORD_*`; `teams`, env `BUB_TEAMS_*`; `linear`, env
 * `BUB_LINEAR_*`; `gchat`, env `BUB_GCHAT_*`) and the webhook server they share (`webhook_host`,
 * `webhook_port`, env `BUB_WEBHOOK_HOST`, `BUB_WEBHOOK_PORT`).
 *
 * @module
 */
import { isRecord } from "../_internal/object.ts";
import { BubError } from "../kernel/errors.ts";
import { loadSection } from "./_settings_fields.ts";
import { CHAT_PLATFORM_SPECS, WEBHOOKS } from "./_channel_settings_specs.ts";
import type { SettingsSources } from "./settings_types.ts";

/** The YAML key holding one section per chat platform. */
export const CHANNELS_KEY = "channels";

/** The chat platforms Bub serves through the Chat SDK. */
export type ChatPlatformName = "slack" | "github" | "discord" | "teams" | "linear" | "gchat";

/** The settings of one chat platform (keys as in `config.yml`). */
export interface ChatPlatformSettings {
  /** Slack, Discord: the bot token. */
  bot_token?: string;
  /** Slack: the signing secret of the app's requests. */
  signing_secret?: string;
  /** Slack: the app-level token (`xapp-…`) of socket mode. */
  app_token?: string;
  /**
   * Slack: `webhook` (Events API) or `socket` (socket mode); null = socket when `app_token` is
   * set and `signing_secret` is not.
   */
  mode?: string | null;
  /** GitHub: a personal access token. */
  token?: string;
  /** GitHub, Linear: the webhook secret. */
  webhook_secret?: string;
  /** Linear: a personal API key. */
  api_key?: string;
  /** Linear: an OAuth access token (instead of the API key). */
  access_token?: string;
  /** Google Chat: the service account key (its JSON, or the path of its JSON file). */
  credentials?: string;
  /** Google Chat: the Google Cloud project number (the audience of Google Chat's tokens). */
  project_number?: string;
  /** Google Chat: the app's HTTP endpoint URL (an accepted token audience). */
  endpoint_url?: string;
  /** Google Chat: the app's user resource name (`users/123…`). */
  bot_user_id?: string;
  /** Google Chat: the OAuth token endpoint (proxies, tests). */
  token_url?: string | null;
  /** Google Chat: the certificates of Google Chat's signing account (proxies, tests). */
  certs_url?: string | null;
  /** Google Chat: the app's Workspace add-on service account (signs add-on events). */
  addon_service_account?: string;
  /** Google Chat: Google's OIDC certificates (proxies, tests). */
  oidc_certs_url?: string | null;
  /** GitHub, Linear: the bot account's name (mentions are `@<user_name>`). */
  user_name?: string;
  /** Discord: the application's public key (hex), which signs its interactions. */
  public_key?: string;
  /** Discord: the application id. */
  application_id?: string;
  /** Teams: the bot's Microsoft app id (its Azure Bot registration). */
  app_id?: string;
  /** Teams: the app's client secret. */
  app_password?: string;
  /** Teams: the tenant of a single-tenant app (empty: a multi-tenant app). */
  tenant_id?: string;
  /** User ids or names allowed to talk (comma-separated); `*` = everyone. */
  allow_users: string | null;
  /**
   * Channel ids (Slack), `owner/repo` (GitHub), channel or guild ids (Discord), conversation ids
   * (Teams), issue ids (Linear) served.
   */
  allow_channels: string | null;
  /** The platform's Web API base URL (proxies, tests). */
  api_base: string | null;
}

/** The webhook server's settings. */
export interface WebhookSettings {
  /** Host the webhook server binds. @default "127.0.0.1" */
  webhook_host: string;
  /** Port of the webhook server (0 = any free one). @default 8788 */
  webhook_port: number;
}

/** The platforms with settings, in a stable order. */
export const CHAT_PLATFORMS = Object.keys(CHAT_PLATFORM_SPECS) as readonly ChatPlatformName[];

function platformData(
  platform: string,
  config: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const channels = config?.[CHANNELS_KEY];
  if (channels === undefined || channels === null) return {};
  if (!isRecord(channels)) {
    throw new BubError(
      "config",
      `${CHANNELS_KEY} must be a mapping of platform names to settings, got ${
        JSON.stringify(channels)
      }`,
    );
  }
  const value = channels[platform];
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    throw new BubError(
      "config",
      `${CHANNELS_KEY}.${platform} must be a mapping, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Loads one chat platform's settings: `channels.<platform>` in YAML under `BUB_<PLATFORM>_*`
 * variables.
 *
 * @throws {BubError} (`config`) naming each bad key, its value and its source
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadChatPlatformSettings } from "./chat_settings.ts";
 * const slack = loadChatPlatformSettings("slack", {
 *   env: { BUB_SLACK_ALLOW_USERS: "U1" },
 *   config: { channels: { slack: { bot_token: "xoxb-1" } } },
 * });
 * assert.ok(slack.bot_token === "xoxb-1" && slack.allow_users === "U1");
 * ```
 */
export function loadChatPlatformSettings(
  platform: ChatPlatformName,
  sources: SettingsSources = {},
): ChatPlatformSettings {
  return loadSection(CHAT_PLATFORM_SPECS[platform]!, {
    env: sources.env ?? {},
    dotenv: sources.dotenv ?? {},
    data: platformData(platform, sources.config),
  }) as unknown as ChatPlatformSettings;
}

/**
 * Loads the webhook server's settings (YAML root, `BUB_WEBHOOK_HOST`, `BUB_WEBHOOK_PORT`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadWebhookSettings } from "./chat_settings.ts";
 * assert.equal(loadWebhookSettings({ env: { BUB_WEBHOOK_PORT: "9000" } }).webhook_port, 9000);
 * ```
 */
export function loadWebhookSettings(sources: SettingsSources = {}): WebhookSettings {
  return loadSection(WEBHOOKS, {
    env: sources.env ?? {},
    dotenv: sources.dotenv ?? {},
    data: sources.config ?? {},
  }) as unknown as WebhookSettings;
}

/** Validates the YAML `channels:` section (every known platform's keys; others are left alone). */
export function validateChannelsSection(data: Record<string, unknown>): void {
  const config = { [CHANNELS_KEY]: data };
  for (const platform of CHAT_PLATFORMS) loadChatPlatformSettings(platform, { config });
}
