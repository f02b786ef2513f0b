/**
 * The chat platform settings: `channels.<platform>` in config.yml under `BUB_<PLATFORM>_*`
 * variables, the shared webhook server's `webhook_host` / `webhook_port`, and config.yml
 * validation naming the bad key.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  loadChatPlatformSettings,
  loadWebhookSettings,
} from "../../../src/builtin/chat_settings.ts";
import { chatChannels } from "../../../src/builtin/chat_channels.ts";
import { CHAT_PLATFORMS } from "../../../src/channels/chat/platforms.ts";
import { sdkLogger } from "../../../src/channels/chat/_sdk_logger.ts";
import { registerBuiltinConfigSections } from "../../../src/builtin/settings.ts";
import { misspeltSettings } from "../../../src/builtin/misspelt_settings.ts";
import { validateConfig } from "../../../src/kernel/configure.ts";
import { BubError } from "../../../src/kernel/errors.ts";
import { slackMode } from "../../../src/channels/chat/_slack.ts";

function configError(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(BubError.isInstance(error), String(error));
    assert.equal((error as BubError).kind, "config");
    assert.match((error as BubError).message, pattern);
    return true;
  };
}

describe("chat platform settings", () => {
  test("YAML channels.slack is read, and BUB_SLACK_* variables win over it", () => {
    const settings = loadChatPlatformSettings("slack", {
      env: { BUB_SLACK_ALLOW_USERS: "U1,U2", BUB_SLACK_API_BASE: "http://127.0.0.1:1/api/" },
      config: {
        channels: { slack: { bot_token: "xoxb-yaml", signing_secret: "s", allow_users: "U9" } },
      },
    });
    assert.equal(settings.bot_token, "xoxb-yaml");
    assert.equal(settings.signing_secret, "s");
    assert.equal(settings.allow_users, "U1,U2");
    assert.equal(settings.api_base, "http://127.0.0.1:1/api/");
    assert.equal(settings.allow_channels, null);
  });

  test("Slack's mode: socket when app_token is set without signing_secret, else webhook; a bad BUB_SLACK_MODE is refused", () => {
    const mode = (env: Record<string, string>) => {
      const s = loadChatPlatformSettings("slack", { env });
      return slackMode({ appToken: s.app_token, signingSecret: s.signing_secret, mode: s.mode });
    };
    assert.equal(mode({ BUB_SLACK_APP_TOKEN: "xapp-1" }), "socket");
    assert.equal(mode({ BUB_SLACK_APP_TOKEN: "xapp-1", BUB_SLACK_SIGNING_SECRET: "s" }), "webhook");
    assert.equal(mode({ BUB_SLACK_SIGNING_SECRET: "s" }), "webhook");
    assert.equal(
      mode({
        BUB_SLACK_APP_TOKEN: "xapp-1",
        BUB_SLACK_SIGNING_SECRET: "s",
        BUB_SLACK_MODE: "socket",
      }),
      "socket",
    );
    assert.throws(
      () => loadChatPlatformSettings("slack", { env: { BUB_SLACK_MODE: "rtm" } }),
      configError(/mode must be one of webhook, socket, got "rtm" \(from BUB_SLACK_MODE\)/),
    );
  });

  test("GitHub reads token, webhook_secret and user_name (default bub); a YAML list is a comma list", () => {
    const settings = loadChatPlatformSettings("github", {
      env: { BUB_GITHUB_TOKEN: "ghp_env" },
      config: {
        channels: { github: { webhook_secret: "w", allow_channels: ["acme/app", "a/b"] } },
      },
    });
    assert.equal(settings.token, "ghp_env");
    assert.equal(settings.webhook_secret, "w");
    assert.equal(settings.user_name, "bub");
    assert.equal(settings.allow_channels, "acme/app,a/b");
  });

  test("Discord reads bot_token, public_key, application_id and api_base from YAML and BUB_DISCORD_*", () => {
    const settings = loadChatPlatformSettings("discord", {
      env: { BUB_DISCORD_PUBLIC_KEY: "ab".repeat(32), BUB_DISCORD_ALLOW_CHANNELS: "9,8" },
      config: {
        channels: {
          discord: { bot_token: "bot-yaml", application_id: "42", api_base: "http://x/api/v10" },
        },
      },
    });
    assert.equal(settings.bot_token, "bot-yaml");
    assert.equal(settings.public_key, "ab".repeat(32));
    assert.equal(settings.application_id, "42");
    assert.equal(settings.api_base, "http://x/api/v10");
    assert.equal(settings.allow_channels, "9,8");
    assert.equal(settings.allow_users, null);
    registerBuiltinConfigSections();
    assert.throws(
      () => validateConfig({ channels: { discord: { public_key: 7 } } }),
      configError(/channels\.discord\.public_key/),
    );
  });

  test("Teams reads app_id, app_password, tenant_id and api_base; allow_channels names a conversation id", async () => {
    const settings = loadChatPlatformSettings("teams", {
      env: { BUB_TEAMS_APP_PASSWORD: "secret-env", BUB_TEAMS_ALLOW_USERS: "29:ada" },
      config: { channels: { teams: { app_id: "app-1", api_base: "http://127.0.0.1:9" } } },
    });
    assert.equal(settings.app_id, "app-1");
    assert.equal(settings.app_password, "secret-env");
    assert.equal(settings.tenant_id, "");
    assert.equal(settings.api_base, "http://127.0.0.1:9");
    const teams = CHAT_PLATFORMS.teams!;
    // An SDK channel id: conversation and serviceUrl in base64url.
    const b64 = (text: string) =>
      btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    const id = `${b64("19:general@thread.tacv2;messageid=17")}:${b64("https://smba.test/teams/")}`;
    assert.deepEqual(teams.channelKeys(id), ["19:general@thread.tacv2", id]);
    await assert.rejects(
      teams.createAdapter({ appId: "app-1" }, sdkLogger("teams", [])),
      configError(/BUB_TEAMS_APP_PASSWORD/),
    );
  });

  test("the webhook server defaults to 127.0.0.1:8788; BUB_WEBHOOK_PORT outside 0..65535 is refused", () => {
    assert.deepEqual(loadWebhookSettings({}), { webhook_host: "127.0.0.1", webhook_port: 8788 });
    assert.equal(loadWebhookSettings({ config: { webhook_port: 9000 } }).webhook_port, 9000);
    assert.throws(
      () => loadWebhookSettings({ env: { BUB_WEBHOOK_PORT: "70000" } }),
      configError(/webhook_port must be at most 65535/),
    );
  });

  test("config.yml validation names a bad channels key and a channels section that is no mapping", () => {
    registerBuiltinConfigSections();
    assert.throws(
      () => validateConfig({ channels: { slack: { bot_token: 5 } } }),
      configError(/channels\.slack\.bot_token/),
    );
    assert.throws(
      () => validateConfig({ channels: "slack" }),
      configError(/section "channels" must be a mapping/),
    );
    assert.doesNotThrow(() => validateConfig({ channels: { slack: { bot_token: "x" } } }));
    assert.deepEqual(misspeltSettings({ channels: {} }), []);
  });

  test("only the platforms with credentials are enabled, under their names", () => {
    const none = chatChannels(() => Promise.resolve(), {});
    assert.deepEqual(none.map((channel) => [channel.name, channel.enabled]), [
      ["slack", false],
      ["github", false],
      ["discord", false],
      ["teams", false],
      ["linear", false],
      ["gchat", false],
    ]);
    const github = chatChannels(() => Promise.resolve(), { env: { BUB_GITHUB_TOKEN: "ghp_1" } });
    assert.deepEqual(github.filter((c) => c.enabled).map((c) => c.name), ["github"]);
    const linear = chatChannels(() => Promise.resolve(), {
      config: { channels: { linear: { access_token: "lin_oauth_1" } } },
    });
    assert.deepEqual(linear.filter((c) => c.enabled).map((c) => c.name), ["linear"]);
    const gchat = chatChannels(() => Promise.resolve(), {
      env: { BUB_GCHAT_CREDENTIALS: "/etc/bub/service-account.json" },
    });
    assert.deepEqual(gchat.filter((c) => c.enabled).map((c) => c.name), ["gchat"]);
  });
});
