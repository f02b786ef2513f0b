/**
 * Private: the field specs of the channel settings — the channel manager's (debounce, active
 * window, enabled channels), Telegram's, the webhook server's, Slack's, GitHub's, Discord's,
 * Teams', Linear's and Google Chat's.
 *
 * @module
 */
import { s as z } from "../_internal/schema.ts";
import type { SectionSpec } from "./_settings_fields.ts";
import { checked, field, int, nonNegative, str, textList } from "./_settings_schemas.ts";

/** The ways the Slack channel receives events. */
export const SLACK_MODES: readonly string[] = ["webhook", "socket"];

/** Spec of the channels settings. */
export const CHANNELS: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field(
      "enabled_channels",
      "list_text",
      str,
      "a string of comma-separated channel names",
      "all",
    ),
    field("debounce_seconds", "float", nonNegative, "a number", 1.0),
    field("max_wait_seconds", "float", nonNegative, "a number", 10.0),
    field("active_time_window", "float", nonNegative, "a number", 60.0),
    field("stream_output", "bool", () => z.boolean(), "a boolean", false),
  ],
};

/** Spec of the telegram settings. */
export const TELEGRAM: SectionSpec = {
  section: "telegram",
  prefix: "BUB_TELEGRAM_",
  fields: [
    field("token", "string", str, "a string", ""),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_chats", "list_text", textList, "a comma-separated string, or null", null),
    field("proxy", "string", textList, "a URL string, or null", null),
    field("api_root", "string", textList, "a URL string, or null", null),
  ],
};

/** Spec of the webhook server shared by the webhook chat platforms (YAML root, `BUB_WEBHOOK_*`). */
export const WEBHOOKS: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field("webhook_host", "string", str, "a string", "127.0.0.1"),
    field(
      "webhook_port",
      "int",
      () =>
        int().min(0, { error: "must be at least 0" }).max(65535, {
          error: "must be at most 65535",
        }),
      "an integer",
      8788,
    ),
  ],
};

/** Spec of the Slack channel settings (YAML `channels: { slack: … }`, `BUB_SLACK_*`). */
export const SLACK: SectionSpec = {
  section: "channels.slack",
  prefix: "BUB_SLACK_",
  fields: [
    field("bot_token", "string", str, "a string", ""),
    field("signing_secret", "string", str, "a string", ""),
    field("app_token", "string", str, "a string", ""),
    field(
      "mode",
      "string",
      () =>
        checked(
          textList(),
          (value) =>
            value === null || value === "" || SLACK_MODES.includes(String(value))
              ? null
              : `must be one of ${SLACK_MODES.join(", ")}`,
        ),
      `"webhook", "socket", or null (socket when app_token is set and signing_secret is not)`,
      null,
    ),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_channels", "list_text", textList, "a comma-separated string, or null", null),
    field("api_base", "string", textList, "a URL string, or null", null),
  ],
};

/** Spec of the GitHub channel settings (YAML `channels: { github: … }`, `BUB_GITHUB_*`). */
export const GITHUB: SectionSpec = {
  section: "channels.github",
  prefix: "BUB_GITHUB_",
  fields: [
    field("token", "string", str, "a string", ""),
    field("webhook_secret", "string", str, "a string", ""),
    field("user_name", "string", str, "a string", "bub"),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_channels", "list_text", textList, "a comma-separated string, or null", null),
    field("api_base", "string", textList, "a URL string, or null", null),
  ],
};

/** Spec of the Discord channel settings (YAML `channels: { discord: … }`, `BUB_DISCORD_*`). */
export const DISCORD: SectionSpec = {
  section: "channels.discord",
  prefix: "BUB_DISCORD_",
  fields: [
    field("bot_token", "string", str, "a string", ""),
    field("public_key", "string", str, "a string", ""),
    field("application_id", "string", str, "a string", ""),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_channels", "list_text", textList, "a comma-separated string, or null", null),
    field("api_base", "string", textList, "a URL string, or null", null),
  ],
};

/** Spec of the Microsoft Teams channel settings (YAML `channels: { teams: … }`, `BUB_TEAMS_*`). */
export const TEAMS: SectionSpec = {
  section: "channels.teams",
  prefix: "BUB_TEAMS_",
  fields: [
    field("app_id", "string", str, "a string", ""),
    field("app_password", "string", str, "a string", ""),
    field("tenant_id", "string", str, "a string", ""),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_channels", "list_text", textList, "a comma-separated string, or null", null),
    field("api_base", "string", textList, "a URL string, or null", null),
  ],
};

/** Spec of the Linear channel settings (YAML `channels: { linear: … }`, `BUB_LINEAR_*`). */
export const LINEAR: SectionSpec = {
  section: "channels.linear",
  prefix: "BUB_LINEAR_",
  fields: [
    field("api_key", "string", str, "a string", ""),
    field("access_token", "string", str, "a string", ""),
    field("webhook_secret", "string", str, "a string", ""),
    field("user_name", "string", str, "a string", "bub"),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_channels", "list_text", textList, "a comma-separated string, or null", null),
    field("api_base", "string", textList, "a URL string, or null", null),
  ],
};

/** Spec of the Google Chat channel settings (YAML `channels: { gchat: … }`, `BUB_GCHAT_*`). */
export const GCHAT: SectionSpec = {
  section: "channels.gchat",
  prefix: "BUB_GCHAT_",
  fields: [
    field("credentials", "string", str, "a string", ""),
    field("project_number", "string", str, "a string", ""),
    field("endpoint_url", "string", str, "a string", ""),
    field("addon_service_account", "string", str, "a string", ""),
    field("bot_user_id", "string", str, "a string", ""),
    field("user_name", "string", str, "a string", "bub"),
    field("allow_users", "list_text", textList, "a comma-separated string, or null", null),
    field("allow_channels", "list_text", textList, "a comma-separated string, or null", null),
    field("api_base", "string", textList, "a URL string, or null", null),
    field("token_url", "string", textList, "a URL string, or null", null),
    field("certs_url", "string", textList, "a URL string, or null", null),
    field("oidc_certs_url", "string", textList, "a URL string, or null", null),
  ],
};
