/**
 * The Chat SDK channels of the builtin plugin: one {@link ChatChannel} per chat platform
 * (`slack`, `github`, `discord`, `teams`, `linear`, `gchat`), configured from
 * `channels.<platform>` / `BUB_<PLATFORM>_*`, sharing one {@link WebhookServer} (`webhook_host`,
 * `webhook_port`). A channel imports the SDK only when it starts, so a platform that is not enabled
 * costs nothing.
 *
 * @module
 */
import { parseAllowList } from "../_internal/allow_list.ts";
import { ChatChannel } from "../channels/chat/chat_channel.ts";
import { WebhookServer } from "../channels/chat/webhook_server.ts";
import type { MessageHandler } from "../kernel/channel.ts";
import { CHAT_PLATFORMS, loadChatPlatformSettings, loadWebhookSettings } from "./chat_settings.ts";
import { loadTapeStoreSettings } from "./settings.ts";
import { parseTapeStoreChoice } from "./tape_store_setting.ts";
import type { SettingsSources } from "./settings_types.ts";

/**
 * The chat platform channels over one webhook server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chatChannels } from "./chat_channels.ts";
 * const channels = chatChannels(async () => {}, { env: { BUB_SLACK_BOT_TOKEN: "xoxb-1" } });
 * assert.deepEqual(channels.filter((c) => c.enabled).map((c) => c.name), ["slack"]);
 * ```
 */
export function chatChannels(
  handler: MessageHandler,
  sources: SettingsSources,
  print?: (line: string) => void,
): ChatChannel[] {
  const webhook = loadWebhookSettings(sources);
  const webhooks = new WebhookServer({
    host: webhook.webhook_host,
    port: webhook.webhook_port,
    print,
  });
  // A PostgreSQL tape store makes `bub gateway` a cluster instance (cluster_setup.ts).
  const store = parseTapeStoreChoice(loadTapeStoreSettings(sources).tape_store);
  const clusterUrl = store?.kind === "postgres" ? store.url : null;
  return CHAT_PLATFORMS.map((platform) => {
    const settings = loadChatPlatformSettings(platform, sources);
    return new ChatChannel({
      platform,
      handler,
      credentials: {
        botToken: settings.bot_token,
        signingSecret: settings.signing_secret,
        appToken: settings.app_token,
        mode: settings.mode,
        token: settings.token,
        webhookSecret: settings.webhook_secret,
        apiKey: settings.api_key,
        accessToken: settings.access_token,
        serviceAccount: settings.credentials,
        projectNumber: settings.project_number,
        endpointUrl: settings.endpoint_url,
        botUserId: settings.bot_user_id,
        tokenUrl: settings.token_url,
        certsUrl: settings.certs_url,
        addOnServiceAccount: settings.addon_service_account,
        oidcCertsUrl: settings.oidc_certs_url,
        publicKey: settings.public_key,
        applicationId: settings.application_id,
        appId: settings.app_id,
        appPassword: settings.app_password,
        tenantId: settings.tenant_id,
        userName: settings.user_name,
        apiBase: settings.api_base,
      },
      allowUsers: parseAllowList(settings.allow_users),
      allowChannels: parseAllowList(settings.allow_channels),
      webhooks,
      clusterUrl,
    });
  });
}
