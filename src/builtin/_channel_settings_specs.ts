/**
 * Private: the field specs of the channel settings — the channel manager's (debounce, active
 * window, enabled channels), Telegram's, the webhook server's and each chat platform's (Slack,
 * GitHub, Discord, Teams, Linear, Google Chat).
 *
 * @module
 */
import { s as z } from "../_internal/schema.ts";
import type { FieldSpec, SectionSpec } from "./_settings_fields.ts";
import {
  checked,
  field,
  int,
  listField,
  nonNegative,
  str,
  textField,
  textList,
  urlField,
} from "./_settings_schemas.ts";

/** The ways the Slack channel receives events. */
export const SLACK_MODES: readonly string[] = ["webhook", "socket"];

/** Spec of the channels settings. */
export const CHANNELS: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    field("enabled_channels", "list_text", str, "a string of comma-separated channel names", "all"),
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
    textField("token"),
    listField("allow_users"),
    listField("allow_chats"),
    urlField("proxy"),
    urlField("api_root"),
  ],
};

/** Spec of the webhook server shared by the webhook chat platforms (YAML root, `BUB_WEBHOOK_*`). */
export const WEBHOOKS: SectionSpec = {
  section: "",
  prefix: "BUB_",
  fields: [
    textField("webhook_host", "127.0.0.1"),
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

/**
 * The spec of chat platform `name` (YAML `channels: { <name>: … }`, `BUB_<NAME>_*`): its own
 * fields, then who may talk to it (`allow_users`, `allow_channels`) and its `api_base`, then
 * the other endpoints in `urls` (each null: the platform's own).
 */
function chatPlatform(
  name: string,
  own: readonly FieldSpec[],
  urls: readonly string[] = [],
): SectionSpec {
  return {
    section: `channels.${name}`,
    prefix: `BUB_${name.toUpperCase()}_`,
    fields: [
      ...own,
      listField("allow_users"),
      listField("allow_channels"),
      urlField("api_base"),
      ...urls.map(urlField),
    ],
  };
}

/** Spec of the Slack channel settings (YAML `channels: { slack: … }`, `BUB_SLACK_*`). */
const SLACK: SectionSpec = chatPlatform("slack", [
  textField("bot_token"),
  textField("signing_secret"),
  textField("app_token"),
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
]);

/** Spec of the GitHub channel settings (YAML `channels: { github: … }`, `BUB_GITHUB_*`). */
const GITHUB: SectionSpec = chatPlatform("github", [
  textField("token"),
  textField("webhook_secret"),
  textField("user_name", "bub"),
]);

/** Spec of the Discord channel settings (YAML `channels: { discord: … }`, `BUB_DISCORD_*`). */
const DISCORD: SectionSpec = chatPlatform("discord", [
  textField("bot_token"),
  textField("public_key"),
  textField("application_id"),
]);

/** Spec of the Microsoft Teams channel settings (YAML `channels: { teams: … }`, `BUB_TEAMS_*`). */
const TEAMS: SectionSpec = chatPlatform("teams", [
  textField("app_id"),
  textField("app_password"),
  textField("tenant_id"),
]);

/** Spec of the Linear channel settings (YAML `channels: { linear: … }`, `BUB_LINEAR_*`). */
const LINEAR: SectionSpec = chatPlatform("linear", [
  textField("api_key"),
  textField("access_token"),
  textField("webhook_secret"),
  textField("user_name", "bub"),
]);

/** Spec of the Google Chat channel settings (YAML `channels: { gchat: … }`, `BUB_GCHAT_*`). */
const GCHAT: SectionSpec = chatPlatform("gchat", [
  textField("credentials"),
  textField("project_number"),
  textField("endpoint_url"),
  textField("addon_service_account"),
  textField("bot_user_id"),
  textField("user_name", "bub"),
], ["token_url", "certs_url", "oidc_certs_url"]);

/** The spec of each chat platform's settings, by platform name (in a stable order). */
export const CHAT_PLATFORM_SPECS: Readonly<Record<string, SectionSpec>> = {
  slack: SLACK,
  github: GITHUB,
  discord: DISCORD,
  teams: TEAMS,
  linear: LINEAR,
  gchat: GCHAT,
};
